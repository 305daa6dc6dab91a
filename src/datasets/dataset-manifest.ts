/**
 * The public data sets ToolForge reads, pinned: each file's path in its upstream repository at a fixed
 * commit, its sha256 and its size. `toolforge data fetch` downloads exactly these bytes and refuses
 * others. The files are the ones the suites read (and their licenses); `SOURCE.md` in each data folder
 * of `../shared/data` says why each was chosen. Not listed: NESTFUL's `data_v2/nestful_data.jsonl`
 * (the 1,861-sample v2 set; no pinned copy was available to hash), StableToolBench's tool environment
 * and response cache (archives on Hugging Face, not in the repository).
 */

export type DatasetFile = {
  /** Path inside the upstream repository, also the path inside `<data folder>/<name>/`. */
  path: string;
  sha256: string;
  bytes: number;
};

export type Dataset = {
  /** The folder name under the data folder, and the name commands take. */
  name: string;
  /** The suites that import it: commands accept a suite's name for its data set (`data fetch webapi`). */
  suites: readonly string[];
  title: string;
  /** https://github.com/<owner>/<repository> */
  repository: string;
  commit: string;
  license: string;
  files: readonly DatasetFile[];
};

/** The Apache-2.0 LICENSE file, byte for byte the same in each of these repositories. */
const apacheLicense: DatasetFile = { path: 'LICENSE', sha256: 'c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4', bytes: 11357 };

export const datasets: readonly Dataset[] = [
  {
    name: 'nestful',
    suites: ['nestful'],
    title: 'NESTFUL',
    repository: 'https://github.com/IBM/NESTFUL',
    commit: 'fc2c4123e73500a56185a5fb354f05d1c8b4890c',
    license: 'Apache-2.0',
    files: [
      apacheLicense,
      { path: 'data_v1/executable/executable-data.json', sha256: 'f595c1cf203349d85e1aac5a0b02f6cf0180ffa16f055b1078baac08a9359d86', bytes: 73842 },
      { path: 'data_v1/executable/executable-spec.json', sha256: 'dd8597b54f4bf983e0bd915a91ea8009e74df2f4191e84244fe931eeed0f5b7b', bytes: 169088 },
      { path: 'data_v1/non-executable/non-executable-glaive-data.json', sha256: 'cd153b62ab7855d9fd2b9ba978a109711c4b0eb9875fcec77c57438f3e8fec0e', bytes: 207418 },
      { path: 'data_v1/non-executable/non-executable-glaive-spec.json', sha256: 'a169ecb650a0c92f4e571b59909ec986c362bf6bd9c885b86009b12aba12c2be', bytes: 60401 },
      { path: 'data_v1/non-executable/non-executable-sgd-data.json', sha256: '7bc1b53cb8de146cd06404d3bf4ca9061e056182721b2a34175455ca950c07b2', bytes: 50358 },
      { path: 'data_v1/non-executable/non-executable-sgd-spec.json', sha256: 'ba86b205a4d0e4fa40a4f25b1c1859ca5ed9c26a9958f890e80b2d25c3fa7694', bytes: 77700 },
      { path: 'data_v2/executable_functions/func_file_map.json', sha256: '416bac2b1ac39a84eb159cdfbb0373bf62681e368b9eac10ed33aa8a8f157bf0', bytes: 219105 },
      { path: 'src/PROMPTS.json', sha256: '738345d518da27fdb8e90910b170af420cb6928583d8b60179daf1bec02c4830', bytes: 13773 },
      { path: 'src/icl_examples.json', sha256: 'fa10032a95bb1d1177f25ddbb6bc102140cac0b41e4d19ea78eecc8b249b18e7', bytes: 19904 },
    ],
  },
  {
    name: 'wapiibench',
    suites: ['webapi'],
    title: 'WAPIIBench',
    repository: 'https://github.com/stg-tud/WAPIIBench',
    commit: 'b5964b80d800af62ecdd03e94e390eba1fa923e5',
    license: 'Apache-2.0 (specs: see their info.license)',
    files: [
      apacheLicense,
      { path: 'data/synthetic/all/test_data_final.json', sha256: '09c778d61f2bf791b1f9bb1572e2a35c5784abcac7fc4382b1d6e30b0e6ef507', bytes: 210050 },
      { path: 'data/synthetic/asana/test_data_corrected.json', sha256: '0f4d1e8edf7a135f2b8ca8d453fd8c95c67070a56d6c18a16c00ebcfbf449c2a', bytes: 77158 },
      { path: 'data/synthetic/google_calendar_v3/test_data_corrected.json', sha256: 'd60342345a1f1330c4086e5e89a39f4364c457f1ec471ac97509e3ad59681733', bytes: 18344 },
      { path: 'data/synthetic/google_sheet_v4/test_data_corrected.json', sha256: 'b5f0b1e2108c5e4d88b24fc2156aa7c85c85792ae6036c449828f8ed30f6aa7a', bytes: 11302 },
      { path: 'data/synthetic/slack/test_data_corrected.json', sha256: 'f83ce91507a6197d23644fc084493fcc34bc47afaf481a71a7afde58b1a633ce', bytes: 83914 },
      { path: 'openapi/real_world_specs/asana.yaml', sha256: 'e2c89bf47fab78478a28e71f58bd4b6c24648779f062a33c624dc80874de4e5c', bytes: 469371 },
      { path: 'openapi/real_world_specs/google_calendar_v3.yaml', sha256: 'a9cf387984922208a1e3f8631c802234cfbdec2e64d9b540bc721cd498ee02fd', bytes: 144457 },
      { path: 'openapi/real_world_specs/google_sheet_v4.yaml', sha256: 'f546383df3d67a9669a46b2009d5a26a7713a48b91da3f5aaef0a56be74e1ac4', bytes: 285287 },
      { path: 'openapi/real_world_specs/slack.yaml', sha256: '6aa49f2b5869e2b0da57973e814460f0642eda09039671c693ea9c613929448f', bytes: 728585 },
      { path: 'openapi/test/petstore-expanded-modified.yaml', sha256: 'e89cf6c1863cce8155f1e435ed5d2af04a1f3c6944f8d28271501b95769004b6', bytes: 15591 },
      { path: 'resources/code_generation_prompt.md', sha256: '46ab71ce42c3abe47a187323f7aff6c78190d89c27cdede118ace1fb10b0e2a1', bytes: 1051 },
      { path: 'resources/dataset_generation_prompt.md', sha256: '9b4e21815567e47e3d904561877c4b68b5f71924468f8f05593e8b66648f06b3', bytes: 2242 },
      { path: 'resources/slack_instructions.md', sha256: '757c2da79e65ae6c01ab6a0a8e3c281457ff483b09be3a25901be6ffdac4b05f', bytes: 333 },
      { path: 'resources/template.json', sha256: '0c574a3175a8968db4bb8749fa6f83cb855faaa83a9c6fdcd8f0d50539317afb', bytes: 216 },
    ],
  },
  {
    name: 'stabletoolbench',
    suites: ['toolbench'],
    title: 'StableToolBench',
    repository: 'https://github.com/THUNLP-MT/StableToolBench',
    commit: 'aa4ed9f4737ad98bd706663f01d63623c3427812',
    license: 'Apache-2.0',
    files: [
      apacheLicense,
      { path: 'data_example/answer/virtual_chatgpt_cot/G1_instruction/1073_CoT@1.json', sha256: '118679388221048baa891181cecb99e89c04a4aa7272a45e1f7480222694ce4b', bytes: 29209 },
      { path: 'data_example/answer/virtual_chatgpt_cot/G1_instruction/588_CoT@1.json', sha256: '81cfe9fb39d75845f8c2eee7f6feca485e66743ed8be4713d2127882a805cb82', bytes: 15777 },
      { path: 'data_example/answer/virtual_chatgpt_cot/G1_instruction/608_CoT@1.json', sha256: 'fdf6f3541e302a60b61eaae44d4c4ba7d4c57f5568e8a5a8226652f5223b7316', bytes: 36060 },
      { path: 'data_example/answer/virtual_chatgpt_dfs/G1_instruction/1073_DFS_woFilter_w2.json', sha256: '883d5327278438a36b1a8e9f1533526326f905ede156af047c99e79c138e1c45', bytes: 27522 },
      { path: 'data_example/answer/virtual_chatgpt_dfs/G1_instruction/588_DFS_woFilter_w2.json', sha256: '3fd70f210ce8e1c234fc5c2e4d887b4d9464039a974c6d621deeb9ce919f5fe7', bytes: 157513 },
      { path: 'data_example/answer/virtual_chatgpt_dfs/G1_instruction/608_DFS_woFilter_w2.json', sha256: 'c46e73196793820eb27a60035c30584140764429302ea4251b878f77ee52a8fa', bytes: 45074 },
      { path: 'data_example/model_predictions_converted/virtual_chatgpt_cot/G1_instruction.json', sha256: '8ab0c8c7eb397ecf259d168a47685d47207ca521b317b086a0b17eaeacae5240', bytes: 25647 },
      { path: 'data_example/model_predictions_converted/virtual_chatgpt_dfs/G1_instruction.json', sha256: '009abb733570224ddc03d85ed38395158d4d2f32c74a4d90d1090933b7f33a43', bytes: 29999 },
      { path: 'data_example/pass_rate_results/virtual_chatgpt_cot/G1_instruction_virtual_chatgpt_cot.csv', sha256: 'edc3edac6f4dda035fae5c10a3ca9969df8314b958dd73c7cb285a160de58098', bytes: 12834 },
      { path: 'data_example/pass_rate_results/virtual_chatgpt_cot/G1_instruction_virtual_chatgpt_cot.json', sha256: '4ebe28f9944794dcca969360feba7aaeb4bd944d1cccfb4164192ec7d864df36', bytes: 13923 },
      { path: 'data_example/pass_rate_results/virtual_chatgpt_dfs/G1_instruction_virtual_chatgpt_dfs.csv', sha256: '8932d1be896c9ba887a959ff4c52f50eb19eefc4b4a2b977d35f3d7b04ab8ff7', bytes: 14222 },
      { path: 'data_example/pass_rate_results/virtual_chatgpt_dfs/G1_instruction_virtual_chatgpt_dfs.json', sha256: 'ad9134163b28872e40040273bf410ab8f3a6f0a299973ff6b4bd00039fe2b89e', bytes: 15043 },
      { path: 'data_example/preference_results/G1_instruction_virtual_chatgpt_cot_virtual_chatgpt_dfs.csv', sha256: '2e4467b68dad23b2146e2fc3f0ae3ea2ab7e7c7ce1f8a0736e9238b0b23810d2', bytes: 24901 },
      { path: 'data_example/preference_results/G1_instruction_virtual_chatgpt_cot_virtual_chatgpt_dfs.json', sha256: '9a508ba409a9df03ca4899c855694abaf4e4919f6477a19b079db95d35894943', bytes: 543 },
      { path: 'server/config.yml', sha256: '14a079ffdcc47f3369f76e50f3258f5f351d12078d91d1c958c933697768ffe1', bytes: 213 },
      { path: 'solvable_queries/test_instruction/G1_category.json', sha256: '123cb9073c8b6e6473df91c8a51170277087e1c263eba2eb6077170edbe849c3', bytes: 779243 },
      { path: 'solvable_queries/test_instruction/G1_instruction.json', sha256: '500aa0105ed451538448f6ea04f10661536b013f3e1a293840fe401688160e7c', bytes: 1199749 },
      { path: 'solvable_queries/test_instruction/G1_tool.json', sha256: '05d0c180bbec9d060fd267cc79399bda05beddd0a6d0de68b5488926a9029a1a', bytes: 1266963 },
      { path: 'solvable_queries/test_instruction/G2_category.json', sha256: '71e18112f7940934f159d623b1c2b4740b1b4dc58a0b596c63b8151abbf8267e', bytes: 865527 },
      { path: 'solvable_queries/test_instruction/G2_instruction.json', sha256: '82d569cd0fc8fc742a15a3011fb5cd6a8b11e0a5b344c884602347439f43cad7', bytes: 903088 },
      { path: 'solvable_queries/test_instruction/G3_instruction.json', sha256: 'f923d1a9452646bd1a415b266117d90675d0f8fc04cf014db58d3cd78c25634f', bytes: 858650 },
      { path: 'solvable_queries/test_query_ids/G1_category.json', sha256: 'f449a1cc1273b7dc4b77ab5db4fc4fe5593f6ac681d0b5bd579c74c0a786c589', bytes: 2421 },
      { path: 'solvable_queries/test_query_ids/G1_instruction.json', sha256: 'b3dae86a67ce471413df4c734034b0c729357aebb233242a444cc2b8380f2f7f', bytes: 2580 },
      { path: 'solvable_queries/test_query_ids/G1_tool.json', sha256: '8a0335fc7abaf657a8c99389c06182d542e094a65d7485cde013e229954793a4', bytes: 2505 },
      { path: 'solvable_queries/test_query_ids/G2_category.json', sha256: 'f2b9dea1741cfd948e9e3c40b5b580bb6c3ab325768e3090a0ca9114379024a3', bytes: 1951 },
      { path: 'solvable_queries/test_query_ids/G2_instruction.json', sha256: 'fa4724a27852558c3cebd7a7fb144c9547c369cc340f535be6f0514282dd4e96', bytes: 1691 },
      { path: 'solvable_queries/test_query_ids/G3_instruction.json', sha256: '6cc8630db8a2a1219f5045fb482fbbaee96071ab11531cba3151d410d9f8f175', bytes: 948 },
      { path: 'solvable_queries_example/test_instruction/G1_instruction.json', sha256: 'f8faf3d69231275850b6a2931eaecd3517331fa8b6ea73163bd66f53403eebf3', bytes: 26007 },
      { path: 'solvable_queries_example/test_query_ids/G1_instruction.json', sha256: '46dfd0c40990d12e60a7f9b81b6de9f583daf74daf93dfcba8ee5843488556c8', bytes: 45 },
      { path: 'toolbench/tooleval/evaluators/tooleval_gpt-3.5-turbo_default/config.yaml', sha256: 'cd80ce6484def599155944b66626aea7d8ed41af0032c5637ef428473eadc6e3', bytes: 1795 },
      { path: 'toolbench/tooleval/evaluators/tooleval_gpt-3.5-turbo_default/template.txt', sha256: '6290be607cd67682457296508edc1404ac4ee0b153225bb6cb0cdeba36c97d7e', bytes: 3466 },
    ],
  },
];

export function datasetNames(): string[] {
  return datasets.map((dataset) => dataset.name);
}

/** By its name or the name of a suite that imports it, in any case: `WAPIIBench` and `webapi` both find wapiibench. */
export function findDataset(name: string): Dataset | undefined {
  const wanted = name.trim().toLowerCase();
  return datasets.find((dataset) => dataset.name === wanted || dataset.suites.includes(wanted));
}

export function datasetBytes(dataset: Dataset): number {
  return dataset.files.reduce((total, file) => total + file.bytes, 0);
}

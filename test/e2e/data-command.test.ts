import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { locateDataset } from '../../src/core/data-location.ts';
import { findDataset } from '../../src/datasets/index.ts';
import { fixturePath, requireData } from '../require-data.ts';
import { keylessEnvironment, runCli, spawnCli, temporaryDirectory } from './run-cli.ts';

/** An environment whose only data folder is empty: a fresh clone on a machine that has fetched nothing. */
function withoutData(): Record<string, string | undefined> {
  return { ...keylessEnvironment(), TOOLFORGE_DATA: temporaryDirectory() };
}

describe('toolforge data', () => {
  test('list shows each data set, its upstream commit and where it is found', async () => {
    const result = await runCli(['data', 'list', '--json'], { cwd: temporaryDirectory(), env: { TOOLFORGE_DATA: fixturePath() } });
    assert.equal(result.code, 0, result.stderr);
    const rows = JSON.parse(result.stdout) as { name: string; commit: string; directory: string | null; source: string | null }[];
    assert.deepEqual(rows.map((row) => [row.name, row.directory, row.source]), [
      ['nestful', fixturePath('nestful'), 'variable'], ['wapiibench', fixturePath('wapiibench'), 'variable'], ['stabletoolbench', fixturePath('stabletoolbench'), 'variable'],
    ]);
    assert.equal(rows[0]!.commit, 'fc2c4123e73500a56185a5fb354f05d1c8b4890c');
    const table = await runCli(['data', 'list'], { cwd: temporaryDirectory(), env: withoutData() });
    assert.match(table.stdout, /^nestful .* absent \(toolforge data fetch nestful\)$/m);
  });

  test('a copy short of files (a broken download) is listed as incomplete, and a missing nestful file is not suggested as the example', async () => {
    const root = temporaryDirectory();
    const nestful = findDataset('nestful')!;
    // Every pinned file but the two under src/ (the state a download cut short there leaves).
    for (const file of nestful.files.filter((each) => !each.path.startsWith('src/'))) {
      const path = join(root, 'nestful', ...file.path.split('/'));
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, '[]');
    }
    const env = { ...keylessEnvironment(), TOOLFORGE_DATA: root };
    const table = await runCli(['data', 'list'], { cwd: temporaryDirectory(), env });
    assert.match(table.stdout, new RegExp(`^nestful .* ${join(root, 'nestful')}, incomplete: 2 of 10 files missing \\(toolforge data fetch nestful\\)$`, 'm'));
    const rows = JSON.parse((await runCli(['data', 'list', '--json'], { cwd: temporaryDirectory(), env })).stdout) as { name: string; missingFiles: number }[];
    assert.deepEqual(rows.map((row) => [row.name, row.missingFiles]), [['nestful', 2], ['wapiibench', 15], ['stabletoolbench', 32]]);
    // In its own process: the data resolver reads that process's environment.
    const run = await spawnCli(['run', 'nestful', '--model', 'builtin/oracle', '--set', 'data=src/icl_examples.json'], { cwd: temporaryDirectory(), env });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /nestful data file 'src\/icl_examples\.json' does not exist\n {2}fix: .*lacks files .*run toolforge data fetch nestful/);
    assert.doesNotMatch(run.stderr, /e\.g\. --set data=/);
    // A path the data set does not have (a typo) gets an example that is there: the benchmark's samples, not the prompt's examples.
    const typo = await spawnCli(['run', 'nestful', '--model', 'builtin/oracle', '--set', 'data=executable-data.json'], { cwd: temporaryDirectory(), env });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, new RegExp(`nestful data file 'executable-data\\.json' does not exist\n {2}fix: .*e\\.g\\. --set data=${join(root, 'nestful', 'data_v1', 'executable', 'executable-data.json').replaceAll('/', '\\/')}$`, 'm'));
  });

  test('path prints the folder; without the data it says which command gets it', async () => {
    const found = await runCli(['data', 'path', 'wapiibench'], { cwd: temporaryDirectory(), env: { TOOLFORGE_DATA: fixturePath() } });
    assert.deepEqual([found.code, found.stdout], [0, `${fixturePath('wapiibench')}\n`]);
    const absent = await runCli(['data', 'path', 'nestful'], { cwd: temporaryDirectory(), env: withoutData() });
    assert.equal(absent.code, 2);
    assert.match(absent.stderr, /needs the nestful data set, which is not on this machine/);
    assert.match(absent.stderr, /fix: run `toolforge data fetch nestful`/);
    const unknown = await runCli(['data', 'fetch', 'imagenet'], { cwd: temporaryDirectory(), env: withoutData() });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown data set 'imagenet'\n {2}fix: one of: nestful, wapiibench, stabletoolbench \(or all\); a suite's name also works \(webapi -> wapiibench, toolbench -> stabletoolbench\)/);
  });

  test('a suite\'s name or any case finds its data set; `data path all` is refused rather than printing one folder', async () => {
    const env = { TOOLFORGE_DATA: fixturePath() };
    const bySuite = await runCli(['data', 'path', 'webapi'], { cwd: temporaryDirectory(), env });
    assert.deepEqual([bySuite.code, bySuite.stdout], [0, `${fixturePath('wapiibench')}\n`]);
    const byTitle = await runCli(['data', 'path', 'StableToolBench'], { cwd: temporaryDirectory(), env });
    assert.deepEqual([byTitle.code, byTitle.stdout], [0, `${fixturePath('stabletoolbench')}\n`]);
    // Named twice (by suite and by name), the data set is checked once.
    const twice = await runCli(['data', 'verify', 'toolbench', 'stabletoolbench'], { cwd: temporaryDirectory(), env });
    assert.equal(twice.stdout.match(/^stabletoolbench: \d+ of 32 files match/gm)?.length, 1);
    const all = await runCli(['data', 'path', 'all'], { cwd: temporaryDirectory(), env });
    assert.equal(all.code, 2);
    assert.equal(all.stdout, '');
    assert.match(all.stderr, /error: `data path` prints the folder of one data set, not all\n {2}fix: name one \(nestful, wapiibench, stabletoolbench\)/);
  });

  test('verify lists every file that differs from the pins and exits 2', async () => {
    // The fixtures are our own files, so none of them is the pinned upstream file.
    const result = await runCli(['data', 'verify', 'nestful'], { cwd: temporaryDirectory(), env: { TOOLFORGE_DATA: fixturePath() } });
    assert.equal(result.code, 2);
    assert.match(result.stdout, /^nestful\/src\/PROMPTS\.json: missing$/m);
    assert.match(result.stdout, /^nestful: 0 of 10 files match the pinned sha256/m);
    assert.match(result.stderr, /error: 10 data file\(s\) differ from the pinned release/);
    assert.match(result.stderr, /fix: run `toolforge data fetch nestful`/);
  });

  test('a folder in place of a data file: verify names it and goes on, a run names it (exit 2); the retry advice of a fetch keeps its --mirror', async () => {
    const root = temporaryDirectory();
    const nestful = findDataset('nestful')!;
    for (const file of nestful.files) {
      const path = join(root, 'nestful', ...file.path.split('/'));
      mkdirSync(join(path, '..'), { recursive: true });
      if (file.path === 'src/icl_examples.json') mkdirSync(path);
      else if (file.path !== 'src/PROMPTS.json') writeFileSync(path, '[]');
    }
    const env = { ...keylessEnvironment(), TOOLFORGE_DATA: root };
    const verified = await runCli(['data', 'verify', 'nestful'], { cwd: temporaryDirectory(), env });
    assert.equal(verified.code, 2, verified.stderr);
    assert.match(verified.stdout, /^nestful\/src\/icl_examples\.json: cannot be read \(a folder, not a file\)$/m);
    assert.match(verified.stdout, /^nestful: 0 of 10 files match the pinned sha256/m);
    assert.match(verified.stderr, /fix: run `toolforge data fetch nestful`/);
    // In its own process: the data resolver reads that process's environment.
    const run = await spawnCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '2', '--db', 'r.db'], { cwd: temporaryDirectory(), env });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`^error: cannot read '${join(root, 'nestful', 'src', 'icl_examples.json')}': it is a folder, not a file\n {2}fix: `, 'm'));
    assert.doesNotMatch(run.stderr, /\n\s+at /);
    const server = createServer((_request, response) => response.end('not the pinned file'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const fetched = await runCli(['data', 'fetch', 'nestful', '--mirror', `http://127.0.0.1:${(server.address() as AddressInfo).port}`], { cwd: temporaryDirectory(), env });
      assert.equal(fetched.code, 2, fetched.stderr);
      assert.match(fetched.stderr, /--mirror http:\/\/127\.0\.0\.1:\d+` again/, 'the retry keeps the mirror');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a damaged prompt or examples file is refused, naming it and data verify, not passed over for other tasks', async () => {
    const env = { ...keylessEnvironment(), TOOLFORGE_DATA: temporaryDirectory() };
    const source = join(env.TOOLFORGE_DATA, 'nestful', 'src');
    mkdirSync(source, { recursive: true });
    const cases: [string, string, RegExp][] = [
      ['icl_examples.json', '[{"input": "cut off', /icl_examples\.json is damaged: it is not valid JSON/],
      ['icl_examples.json', '{"input": "an object"}', /icl_examples\.json is damaged: it is not a list of examples/],
      ['PROMPTS.json', '{}', /PROMPTS\.json is damaged: it holds no "[^"]+" prompt/],
    ];
    for (const [name, text, message] of cases) {
      rmSync(source, { recursive: true, force: true });
      mkdirSync(source, { recursive: true });
      writeFileSync(join(source, name), text);
      // In its own process: the data resolver reads that process's environment.
      const run = await spawnCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '2', '--set', name === 'PROMPTS.json' ? 'icl=0' : 'icl=3', '--db', 'r.db'], { cwd: temporaryDirectory(), env });
      assert.equal(run.code, 2, `${name}: ${run.stderr}`);
      assert.match(run.stderr, message, name);
      assert.match(run.stderr, /fix: run `toolforge data verify nestful`/, name);
    }
  });

  test('$TOOLFORGE_DATA naming a file, not a folder: fetch, path and list say so', async () => {
    const file = join(temporaryDirectory(), 'replay.jsonl');
    writeFileSync(file, '{}\n');
    const env = { ...keylessEnvironment(), TOOLFORGE_DATA: file };
    const fetched = await runCli(['data', 'fetch', 'nestful', '--mirror', 'http://127.0.0.1:9'], { cwd: temporaryDirectory(), env });
    assert.equal(fetched.code, 2);
    assert.match(fetched.stderr, new RegExp(`^error: \\$TOOLFORGE_DATA is ${file}, a file, not a folder: \`data fetch\` cannot write the data sets into it\n {2}fix: set \\$TOOLFORGE_DATA to the folder`));
    const path = await runCli(['data', 'path', 'nestful'], { cwd: temporaryDirectory(), env });
    assert.equal(path.code, 2);
    assert.match(path.stderr, /a file, not a folder/);
    assert.doesNotMatch(path.stderr, /toolforge data fetch nestful` \(downloads it into/);
    const listed = await runCli(['data', 'list'], { cwd: temporaryDirectory(), env });
    assert.equal(listed.code, 0);
    assert.match(listed.stderr, /warning: \$TOOLFORGE_DATA is .*, a file, not a folder/);
    const badMirror = await runCli(['data', 'fetch', 'nestful', '--mirror', 'notaurl'], { cwd: temporaryDirectory(), env: withoutData() });
    assert.equal(badMirror.code, 2);
    assert.match(badMirror.stderr, /--mirror <url>' argument 'notaurl' is invalid/);
  });

  test('fetch with no connection says what to do offline', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await runCli(['data', 'fetch', 'wapiibench', '--mirror', `http://127.0.0.1:${port}`], { cwd: temporaryDirectory(), env: withoutData() });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /error: cannot download wapiibench\/LICENSE from http:\/\/127\.0\.0\.1:\d+\/stg-tud\/WAPIIBench\/b5964b80d800af62ecdd03e94e390eba1fa923e5\/LICENSE/);
    assert.match(result.stderr, /fix: if this machine is offline, copy the wapiibench\/ folder .* `export TOOLFORGE_DATA=<folder>`.*`--set data=<file>`/);
  });
});

describe('toolforge data fetch from a mirror of the real data', { skip: requireData('nestful') }, () => {
  let server: Server;
  let mirror: string;
  const nestful = findDataset('nestful')!;

  before(async () => {
    const source = locateDataset('nestful')!.directory;
    const prefix = `/IBM/NESTFUL/${nestful.commit}/`;
    server = createServer((request, response) => {
      const url = decodeURIComponent(request.url ?? '');
      const path = url.startsWith(prefix) ? url.slice(prefix.length) : '';
      if (!nestful.files.some((file) => file.path === path)) {
        response.statusCode = 404;
        response.end();
        return;
      }
      response.end(readFileSync(join(source, ...path.split('/'))));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('the pinned files arrive verified in the data folder, and verify and path then find them', async () => {
    const env = withoutData();
    const fetched = await runCli(['data', 'fetch', 'nestful', '--mirror', mirror], { cwd: temporaryDirectory(), env });
    assert.equal(fetched.code, 0, fetched.stderr);
    assert.equal(fetched.stdout, `nestful: 10 files verified in ${join(env.TOOLFORGE_DATA!, 'nestful')} (10 downloaded, 0 already present)\n`);
    assert.ok(existsSync(join(env.TOOLFORGE_DATA!, 'nestful', 'src', 'icl_examples.json')));
    const verified = await runCli(['data', 'verify', 'nestful'], { cwd: temporaryDirectory(), env });
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^nestful: 10 of 10 files match the pinned sha256/);
    const path = await runCli(['data', 'path', 'nestful'], { cwd: temporaryDirectory(), env });
    assert.equal(path.stdout, `${join(env.TOOLFORGE_DATA!, 'nestful')}\n`);
  });
});

describe('suites without their data', () => {
  test('run webapi and generate webapi stop with a ConfigError naming `toolforge data fetch wapiibench`', async () => {
    for (const args of [['run', 'webapi', '--model', 'builtin/oracle', '--count', '2'], ['generate', 'webapi', '--count', '2']]) {
      const result = await spawnCli(args, { cwd: temporaryDirectory(), env: withoutData() });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /^error: suite 'webapi' \(its default tasks are the 395 WAPIIBench tasks\) needs the wapiibench data set, which is not on this machine/);
      assert.match(result.stderr, /fix: run `toolforge data fetch wapiibench`.*--set spec=<file>/);
    }
  });

  test('run nestful generates without data; importing a data-set file without it names `toolforge data fetch nestful`', async () => {
    const generated = await spawnCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '2', '--json'], { cwd: temporaryDirectory(), env: withoutData() });
    assert.equal(generated.code, 0, generated.stderr);
    assert.equal((JSON.parse(generated.stdout) as { passRate: number }).passRate, 1);
    const imported = await spawnCli(['run', 'nestful', '--model', 'builtin/oracle', '--set', 'data=src/icl_examples.json'], { cwd: temporaryDirectory(), env: withoutData() });
    assert.equal(imported.code, 2, imported.stderr);
    assert.match(imported.stderr, /^error: nestful data file 'src\/icl_examples\.json' needs the nestful data set/);
    assert.match(imported.stderr, /fix: run `toolforge data fetch nestful`/);
  });

  test('nestful tasks say whose instruction and how many examples their prompt holds: the same seed gives other prompts without the data', async () => {
    const generate = async (env: Record<string, string | undefined>, ...knobs: string[]) => {
      const result = await spawnCli(['generate', 'nestful', '--count', '1', '--seed', '3', '--no-validate', ...knobs.flatMap((knob) => ['--set', knob])], { cwd: temporaryDirectory(), env });
      const task = result.code === 0 ? JSON.parse(result.stdout) as { params: Record<string, unknown>; prompt: { content: string }[] } : undefined;
      return { ...result, task, examples: (task?.prompt[0].content.match(/#Example-\d/g) ?? []).length };
    };
    // Without the data set: our own wording and no examples, recorded in the task; examples asked for by number are refused.
    const bare = await generate(withoutData());
    assert.equal(bare.code, 0, bare.stderr);
    assert.deepEqual([bare.task?.params.icl, bare.task?.params.instruction, bare.examples], ['0', 'toolforge', 0]);
    const asked = await generate(withoutData(), 'icl=1');
    assert.equal(asked.code, 2);
    assert.match(asked.stderr, /^error: nestful knob 'icl=1' \(in-context examples from the data's src\/icl_examples\.json\) needs the nestful data set/);
    assert.match(asked.stderr, /fix: run `toolforge data fetch nestful`.*--set icl=0/);

    // A data folder with the prompt file and two examples (written here: the shape of the published files, our own text).
    const root = temporaryDirectory();
    mkdirSync(join(root, 'nestful', 'src'), { recursive: true });
    const template = 'Compose the functions below into calls.\n{FUNCTION_STR}\n\nHere are some examples:\n{ICL_EXAMPLES}\n\nQuestion: {{query}}';
    writeFileSync(join(root, 'nestful', 'src', 'PROMPTS.json'), JSON.stringify({ 'LLaMa-3.1': `<|start_header_id|>system<|end_header_id|>\n\n${template}<|eot_id|>` }));
    const example = (input: string) => ({ input, output: [{ name: 'add', label: '$var_1', arguments: { arg_0: 1, arg_1: 2 } }] });
    writeFileSync(join(root, 'nestful', 'src', 'icl_examples.json'), JSON.stringify([example('Add 1 and 2.'), example('What is 1 plus 2?')]));
    const withData = { ...keylessEnvironment(), TOOLFORGE_DATA: root };
    const full = await generate(withData);
    assert.equal(full.code, 0, full.stderr);
    assert.deepEqual([full.task?.params.icl, full.task?.params.instruction, full.examples], ['2', undefined, 2]);
    assert.match(full.task?.prompt[0].content ?? '', /^Compose the functions below into calls\.\n\[\{"name": /);
    assert.notEqual(full.task?.prompt[0].content, bare.task?.prompt[0].content);
    const one = await generate(withData, 'icl=1');
    assert.deepEqual([one.task?.params.icl, one.examples], ['1', 1]);
    const tooMany = await generate(withData, 'icl=3');
    assert.equal(tooMany.code, 2);
    assert.match(tooMany.stderr, /asks for 3 examples; that file holds 2\n {2}fix: use --set icl=2 or fewer/);
  });

  test('webapi tasks made without the data say their prompt uses our instructions, not WAPIIBench\'s', async () => {
    const spec = fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml');
    const generate = async (env: Record<string, string | undefined>) => {
      const result = await spawnCli(['generate', 'webapi', '--count', '1', '--no-validate', '--set', `spec=${spec}`], { cwd: temporaryDirectory(), env });
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout) as { params: Record<string, unknown>; prompt: { content: string }[] };
    };
    const bare = await generate(withoutData());
    assert.equal(bare.params.instruction, 'toolforge');
    const root = temporaryDirectory();
    mkdirSync(join(root, 'wapiibench', 'resources'), { recursive: true });
    writeFileSync(join(root, 'wapiibench', 'resources', 'code_generation_prompt.md'), 'Call the {api} API with {syntax}{extra_instructions}.\n```javascript\n');
    const withPrompt = await generate({ ...keylessEnvironment(), TOOLFORGE_DATA: root });
    assert.equal(withPrompt.params.instruction, undefined);
    assert.match(withPrompt.prompt[0].content, /^Call the .* API with axios\.method\(url\[, config\]\) without any explanations\.\n```javascript\n\/\/ /);
  });

  test('webapi runs on a spec or task file of the user\'s without any data set', async () => {
    const result = await spawnCli(['run', 'webapi', '--model', 'builtin/oracle', '--count', '3', '--json', '--set', `spec=${fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml')}`],
      { cwd: temporaryDirectory(), env: withoutData() });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual((JSON.parse(result.stdout) as { passRate: number; episodes: number }), { ...JSON.parse(result.stdout), passRate: 1, episodes: 3 });
  });
});

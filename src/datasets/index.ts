export { datasetBytes, datasetNames, datasets, findDataset } from './dataset-manifest.ts';
export type { Dataset, DatasetFile } from './dataset-manifest.ts';
export { fetchDataset, offlineAdvice } from './fetch-dataset.ts';
export type { FetchDatasetOptions, FetchedFile } from './fetch-dataset.ts';
export { checkMirrorUrl, describeMirror, mirrorProblem, exampleMirror, mirrorFileExample, mirrorLayout } from './mirror-url.ts';
export { rawGithubBase, upstreamCommitUrl, upstreamFileUrl } from './upstream-url.ts';
export { checkDatasetFile, countMissingFiles, sha256Of, verifyDataset } from './verify-dataset.ts';
export type { FileCheck } from './verify-dataset.ts';

export { defaultResultsPath, openResultsStore } from './results-store.ts';
export type { NewRun, ResultsStore } from './results-store.ts';
export type { Provenance, RunStatus, StoredRun } from './stored-run.ts';
export { createRunId } from './run-id.ts';
export { exportRunLines, parseRunExport } from './run-jsonl.ts';
export type { RunExport } from './run-jsonl.ts';
export { episodeRecordSchema, exportLineSchema, provenanceSchema, storedRunSchema } from './record-schemas.ts';
export type { EpisodeOutcome, EpisodePage, EpisodeQuery, RunOutcomeCounts } from './episode-query.ts';
export { compressionThresholdBytes } from './transcript-encoding.ts';

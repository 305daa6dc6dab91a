import { summarizeRun } from '../runner/summarize-run.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { RunReport } from './run-report.ts';

/** A stored run as a report: figures recomputed from the store, plus its episodes without transcripts. */
export function loadRunReport(store: ResultsStore, runId: string): RunReport {
  const summary = summarizeRun(store, runId);
  return { summary, startedAt: summary.createdAt, episodes: store.listEpisodeOutcomes(runId) };
}

import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/json.ts';
import { summarizeRun } from '../runner/summarize-run.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { RunReport } from './run-report.ts';

/** A stored run as a report: figures recomputed from the store, plus its episodes and task digests. */
export function loadRunReport(store: ResultsStore, runId: string): RunReport {
  const summary = summarizeRun(store, runId);
  const taskDigests: Record<string, string> = {};
  for (const task of store.listTasks(runId)) {
    taskDigests[task.id] = createHash('sha256').update(canonicalJson(task)).digest('hex').slice(0, 16);
  }
  return { summary, startedAt: summary.createdAt, episodes: store.listEpisodes(runId), taskDigests };
}

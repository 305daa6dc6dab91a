import type { Task } from '../core/task.ts';
import { pairedComparison } from '../metrics/paired-comparison.ts';
import type { PairedComparison, PairedComparisonOptions } from '../metrics/paired-comparison.ts';
import type { ResultsStore } from '../store/results-store.ts';

export type CompareRunsOptions = PairedComparisonOptions & {
  /**
   * Which tasks of the two runs are the same task (default: the task id, or for a derived task the
   * id of the task it came from, `origin.taskId`).
   */
  pairKey?: (task: Task) => string;
  /**
   * Each run's task keys by task id, when the caller already has them (a report comparing many runs keys each run's
   * tasks once): the runs' tasks are then not read. Takes the place of `pairKey`.
   */
  taskKeys?: (runId: string) => ReadonlyMap<string, string>;
};

export type RunComparison = PairedComparison & { baselineRunId: string; treatmentRunId: string };

/**
 * Paired comparison of two stored runs on the same tasks (model A vs B, original vs drifted tools):
 * each task's value is its pass rate over its scored trials; tasks with no scored trial in a run are
 * left out of that run (and so unpaired).
 */
export function compareRuns(store: ResultsStore, baselineRunId: string, treatmentRunId: string, options: CompareRunsOptions = {}): RunComparison {
  const passRates = (runId: string): Record<string, number> => {
    store.getRun(runId);
    // Per task its key and per key two counts; tasks and episodes are read a page at a time.
    const keyOf = options.taskKeys?.(runId) ?? taskKeysOf(store, runId, options.pairKey ?? ((task) => task.origin?.taskId ?? task.id));
    const counts = new Map<string, { total: number; passed: number }>();
    for (const { outcome: episode } of store.iterateEpisodeOutcomes(runId, { status: 'scored' })) {
      const key = keyOf.get(episode.taskId);
      if (key === undefined || !episode.score) continue;
      const count = counts.get(key) ?? { total: 0, passed: 0 };
      count.total += 1;
      if (episode.score.passed) count.passed += 1;
      counts.set(key, count);
    }
    return Object.fromEntries([...counts].map(([key, count]) => [key, count.passed / count.total]));
  };
  return {
    baselineRunId,
    treatmentRunId,
    ...pairedComparison(passRates(baselineRunId), passRates(treatmentRunId), { seed: options.seed, resamples: options.resamples }),
  };
}

/** A run's task keys by task id; its tasks are read a page at a time and only the keys are kept. */
export function taskKeysOf(store: ResultsStore, runId: string, pairKey: (task: Task) => string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const task of store.iterateTasks(runId)) keys.set(task.id, pairKey(task));
  return keys;
}

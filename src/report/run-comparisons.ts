import { taskPairKey } from '../core/task-digest.ts';
import type { RunComparison } from '../runner/compare-runs.ts';
import { compareRuns, taskKeysOf } from '../runner/compare-runs.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { ReportTable } from '../suites/spec.ts';
import { formatInterval, formatNumber, formatPercent } from './format-figure.ts';
import type { TrialsNeeded } from './trials-needed.ts';
import { trialsNeeded } from './trials-needed.ts';

/** A paired comparison as a report shows it: which suite, which runs, and how many tasks a study of it needs. */
export type ReportedComparison = {
  suite: string; comparison: RunComparison; trialsNeeded?: TrialsNeeded;
  /** The two runs' trials per task (baseline, run), when they differ: the study size pairs only the trials both ran. */
  trials?: [number, number];
};

/**
 * Each later run of a suite against the first run of that suite in `runIds` (given oldest first)
 * that shares tasks with it, paired per task by the runner's compareRuns. Task ids name a seed and an
 * index, not the knobs, so tasks pair by id and content digest: only identical tasks are compared, and a derived task (a transform's output)
 * pairs with the exact task it came from (in
 * a sweep, each grid point's runs compare with the first model's run at that point). Runs sharing no
 * task with an earlier run are left out: there is nothing to pair. Each comparison also says how many
 * tasks a study needs to detect its difference (trials-needed.ts).
 */
export function compareWithFirstRuns(store: ResultsStore, runIds: readonly string[]): ReportedComparison[] {
  const comparisons: ReportedComparison[] = [];
  const earlierRunsOfSuite = new Map<string, string[]>();
  // Each run's tasks are read and digested once (a digest hashes the whole task): a run is the baseline of every later
  // run of its suite, and each comparison reads both runs' keys twice. Only the keys are kept, not the tasks.
  const keysOfRun = new Map<string, Map<string, string>>();
  const taskKeys = (runId: string): Map<string, string> => {
    let keys = keysOfRun.get(runId);
    if (!keys) {
      keys = taskKeysOf(store, runId, taskPairKey);
      keysOfRun.set(runId, keys);
    }
    return keys;
  };
  for (const runId of runIds) {
    const suite = store.getRun(runId).suite.id;
    const earlier = earlierRunsOfSuite.get(suite) ?? [];
    earlierRunsOfSuite.set(suite, [...earlier, runId]);
    if (earlier.length === 0) continue;
    const keys = new Set(taskKeys(runId).values());
    const baselineRunId = earlier.find((candidate) => someKey(taskKeys(candidate).values(), (key) => keys.has(key)));
    if (baselineRunId === undefined) continue;
    const comparison = compareRuns(store, baselineRunId, runId, { taskKeys, seed: 0 });
    if (comparison.pairs === 0) continue;
    const trials: [number, number] = [store.getRun(baselineRunId).trials, store.getRun(runId).trials];
    comparisons.push({ suite, comparison, trialsNeeded: trialsNeeded(store, baselineRunId, runId, taskKeys), ...(trials[0] !== trials[1] ? { trials } : {}) });
  }
  return comparisons;
}

/**
 * Why named runs are in no paired comparison, in one note (undefined when every run is in one, or only one is named): the
 * only run of its suite named, or none of its tasks is a task of an earlier run of its suite named. Without it, a run
 * missing from the comparison table looks like a run that was compared and dropped.
 */
export function unpairedRunsNote(store: ResultsStore, runIds: readonly string[], comparisons: readonly ReportedComparison[]): string | undefined {
  if (runIds.length < 2) return undefined;
  const compared = new Set(comparisons.flatMap(({ comparison }) => [comparison.baselineRunId, comparison.treatmentRunId]));
  const suiteOf = new Map(runIds.map((runId) => [runId, store.getRun(runId).suite.id]));
  const runsOfSuite = (suite: string): number => [...suiteOf.values()].filter((each) => each === suite).length;
  const reasons = runIds.filter((runId) => !compared.has(runId)).map((runId) => {
    const suite = suiteOf.get(runId) as string;
    if (runsOfSuite(suite) === 1) return `${runId} is the only ${suite} run named`;
    const first = runIds.find((each) => suiteOf.get(each) === suite) === runId;
    return first ? `no other ${suite} run named shares a task with ${runId}` : `${runId} shares no task with the ${suite} runs named before it`;
  });
  return reasons.length === 0 ? undefined : `not in the paired comparison: ${reasons.join('; ')} (runs pair on the same tasks: the same suite, seed and knobs)`;
}

function someKey(keys: Iterable<string>, test: (key: string) => boolean): boolean {
  for (const key of keys) if (test(key)) return true;
  return false;
}

export function comparisonTable(comparisons: readonly ReportedComparison[]): ReportTable {
  return {
    title: 'Paired comparison with the first run of each suite on the same tasks (per-task pass rate; bootstrap 95% CI; exact sign test; '
      + 'tasks needed to detect the difference at 95% confidence and 80% power, McNemar)',
    columns: ['suite', 'baseline run', 'run', 'paired tasks', 'baseline pass rate', 'run pass rate', 'difference', 'difference 95% CI', 'better / worse / tied', 'sign test p', 'tasks needed'],
    rows: comparisons.map(({ suite, comparison, trialsNeeded: needed, trials }) => [
      suite, comparison.baselineRunId, comparison.treatmentRunId, comparison.pairs, formatPercent(comparison.baselineMean),
      formatPercent(comparison.treatmentMean), signedPercent(comparison.meanDifference), formatInterval(comparison.differenceCI95),
      `${comparison.signTest.improved} / ${comparison.signTest.worsened} / ${comparison.signTest.ties}`, formatPValue(comparison.signTest.pValue),
      needed === undefined ? '-' : `${needed.needed === null ? 'no difference' : needed.needed}${neededFromNote(trials)}`,
    ]),
  };
}

/**
 * The study size pairs episodes by task and trial, the other columns pair tasks (their mean over trials): runs of 1
 * and 3 trials pair on the first trial alone, and the cell says so.
 */
function neededFromNote(trials: [number, number] | undefined): string {
  if (trials === undefined) return '';
  const shared = Math.min(...trials);
  return ` (from ${shared === 1 ? 'the first trial' : `the first ${shared} trials`} of each task: the runs have ${trials[0]} and ${trials[1]})`;
}

/** Four decimals, and a bound below that (a p-value is never exactly 0). */
function formatPValue(pValue: number): string {
  return pValue < 0.0001 ? '<0.0001' : formatNumber(pValue);
}

function signedPercent(fraction: number): string {
  return `${fraction > 0 ? '+' : ''}${formatPercent(fraction)}`;
}

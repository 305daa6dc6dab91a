import { taskPairKey } from '../core/task-digest.ts';
import type { RunComparison } from '../runner/compare-runs.ts';
import { compareRuns } from '../runner/compare-runs.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { ReportTable } from '../suites/spec.ts';
import { formatInterval, formatNumber, formatPercent } from './format-figure.ts';

/** A paired comparison as a report shows it: which suite, which runs. */
export type ReportedComparison = { suite: string; comparison: RunComparison };

/**
 * Each later run of a suite against the first run of that suite in `runIds` (given oldest first),
 * paired per task by the runner's compareRuns. Task ids name a seed and an index, not the knobs, so
 * tasks pair by id and content digest: only identical tasks are compared; a derived task (a
 * transform's output) pairs with the exact task it came from. Runs sharing no task are left out.
 */
export function compareWithFirstRuns(store: ResultsStore, runIds: readonly string[]): ReportedComparison[] {
  const comparisons: ReportedComparison[] = [];
  const firstRunOfSuite = new Map<string, string>();
  for (const runId of runIds) {
    const suite = store.getRun(runId).suite.id;
    const baselineRunId = firstRunOfSuite.get(suite);
    if (baselineRunId === undefined) {
      firstRunOfSuite.set(suite, runId);
      continue;
    }
    const comparison = compareRuns(store, baselineRunId, runId, { pairKey: taskPairKey, seed: 0 });
    if (comparison.pairs > 0) comparisons.push({ suite, comparison });
  }
  return comparisons;
}

export function comparisonTable(comparisons: readonly ReportedComparison[]): ReportTable {
  return {
    title: 'Paired comparison with the first run of each suite (per-task pass rate; bootstrap 95% CI; exact sign test)',
    columns: ['suite', 'baseline run', 'run', 'paired tasks', 'baseline pass rate', 'run pass rate', 'difference', 'difference 95% CI', 'better / worse / tied', 'sign test p'],
    rows: comparisons.map(({ suite, comparison }) => [
      suite, comparison.baselineRunId, comparison.treatmentRunId, comparison.pairs, formatPercent(comparison.baselineMean),
      formatPercent(comparison.treatmentMean), signedPercent(comparison.meanDifference), formatInterval(comparison.differenceCI95),
      `${comparison.signTest.improved} / ${comparison.signTest.worsened} / ${comparison.signTest.ties}`, formatPValue(comparison.signTest.pValue),
    ]),
  };
}

/** Four decimals, and a bound below that (a p-value is never exactly 0). */
function formatPValue(pValue: number): string {
  return pValue < 0.0001 ? '<0.0001' : formatNumber(pValue);
}

function signedPercent(fraction: number): string {
  return `${fraction > 0 ? '+' : ''}${formatPercent(fraction)}`;
}

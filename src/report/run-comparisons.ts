import type { PairedComparison } from '../metrics/paired-comparison.ts';
import { pairedComparison } from '../metrics/paired-comparison.ts';
import type { ReportTable } from '../suites/spec.ts';
import { formatInterval, formatNumber, formatPercent } from './format-figure.ts';
import type { RunReport } from './run-report.ts';
import { taskResults } from './task-results.ts';

export type RunComparison = { suite: string; baselineRunId: string; runId: string; comparison: PairedComparison };

/**
 * Each later run of a suite against its first run in the report, paired per task (the share of a
 * task's scored trials that passed), so that task difficulty cancels out. Tasks pair when their ids
 * and content digests match (same seed, index and knobs); runs sharing no task are left out.
 */
export function compareRuns(reports: readonly RunReport[]): RunComparison[] {
  const comparisons: RunComparison[] = [];
  const baselines = new Map<string, RunReport>();
  for (const report of reports) {
    const baseline = baselines.get(report.summary.suite);
    if (!baseline) {
      baselines.set(report.summary.suite, report);
      continue;
    }
    const comparison = pairedComparison(perTaskPassRate(baseline), perTaskPassRate(report), { seed: 0 });
    if (comparison.pairs === 0) continue;
    comparisons.push({ suite: report.summary.suite, baselineRunId: baseline.summary.runId, runId: report.summary.runId, comparison });
  }
  return comparisons;
}

function perTaskPassRate(report: RunReport): Record<string, number> {
  const rates: Record<string, number> = {};
  for (const task of taskResults(report.episodes)) {
    if (task.scored === 0) continue;
    const digest = report.taskDigests?.[task.taskId];
    rates[digest === undefined ? task.taskId : `${task.taskId}#${digest}`] = task.passed / task.scored;
  }
  return rates;
}

export function comparisonTable(comparisons: readonly RunComparison[]): ReportTable {
  return {
    title: 'Paired comparison with the first run of each suite (per-task pass rate; bootstrap 95% CI; exact sign test)',
    columns: ['suite', 'baseline run', 'run', 'paired tasks', 'baseline pass rate', 'run pass rate', 'difference', 'difference 95% CI', 'better / worse / tied', 'sign test p'],
    rows: comparisons.map(({ suite, baselineRunId, runId, comparison }) => [
      suite, baselineRunId, runId, comparison.pairs, formatPercent(comparison.baselineMean), formatPercent(comparison.treatmentMean),
      signedPercent(comparison.meanDifference), formatInterval(comparison.differenceCI95),
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

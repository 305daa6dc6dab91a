import type { ReportTable } from '../suites/spec.ts';
import type { DifficultyCurve } from './difficulty-curves.ts';
import { formatInterval, formatNumber, formatPercent } from './format-figure.ts';
import type { Leaderboard } from './leaderboard.ts';
import type { RunCosts } from './run-costs.ts';

/** Tables of the report analysis, shared by the console and HTML reports so both show the same figures. */

export function difficultyTable(curve: DifficultyCurve): ReportTable {
  return {
    title: `Accuracy by ${curve.axis} (${curve.suite}: ${curve.description}; Wilson 95% CI)`,
    columns: [curve.axis, 'model', 'scored', 'passed', 'pass rate', '95% CI'],
    rows: curve.points.map((point) => [point.level, point.series, point.scored, point.passed, formatPercent(point.passRate), formatInterval(point.passRateCI95)]),
  };
}

/** Failed episodes per level and model, one column per failure code seen along the axis. */
export function failuresByDifficultyTable(curve: DifficultyCurve): ReportTable | null {
  const codes = [...new Set(curve.points.flatMap((point) => Object.keys(point.failures)))].sort();
  if (codes.length === 0) return null;
  return {
    title: `Failures by ${curve.axis} (${curve.suite}): failed episodes by failure code`,
    columns: [curve.axis, 'model', 'failed', ...codes],
    rows: curve.points.map((point) => [point.level, point.series, point.scored - point.passed, ...codes.map((code) => point.failures[code] ?? 0)]),
  };
}

export function leaderboardTable(board: Leaderboard): ReportTable {
  return {
    title: 'Leaderboard: pass rate per model and suite, pooled over runs (Wilson 95% CI, scored episodes)',
    columns: ['model', ...board.suites, 'mean over suites'],
    rows: board.rows.map((row) => [row.model, ...board.suites.map((suite) => {
      const cell = row.cells[suite];
      return cell === null || cell.scored === 0 ? '-' : `${formatPercent(cell.passRate)} ${formatInterval(cell.passRateCI95)} n=${cell.scored}`;
    }), row.meanPassRate === null ? '-' : formatPercent(row.meanPassRate)]),
  };
}

export function costsTable(costs: readonly RunCosts[]): ReportTable {
  return {
    title: 'Tokens, cost and latency per run (cost at list prices, USD; latency over scored episodes, ms)',
    columns: ['run', 'model', 'input tokens', 'output tokens', 'cost (USD)', 'p50 ms', 'p90 ms', 'p99 ms'],
    rows: costs.map((cost) => [cost.runId, cost.model, cost.inputTokens, cost.outputTokens, cost.costUsd === null ? 'no price' : formatUsd(cost.costUsd),
      cost.latencyMs ? formatNumber(cost.latencyMs.p50) : '-', cost.latencyMs ? formatNumber(cost.latencyMs.p90) : '-', cost.latencyMs ? formatNumber(cost.latencyMs.p99) : '-']),
  };
}

export function formatUsd(amount: number): string {
  return `$${amount.toFixed(amount >= 100 ? 2 : 4)}`;
}

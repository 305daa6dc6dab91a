import { wilsonInterval } from '../metrics/wilson-interval.ts';
import { modelVariantLabeller } from './model-variant.ts';
import type { RunReport } from './run-report.ts';

export type LeaderboardCell = { runs: number; scored: number; passed: number; passRate: number; passRateCI95: [number, number] };

export type Leaderboard = {
  suites: string[];
  /**
   * Best first: models covering more suites, then by mean pass rate over their suites, then by name. The mean is over
   * the suites with scored episodes; null when there are none (every episode an infrastructure error), not 0.
   */
  rows: { model: string; meanPassRate: number | null; cells: Record<string, LeaderboardCell | null> }[];
};

/**
 * Models x suites: each cell pools every scored episode of that model on that suite over the
 * report's runs (all grid points of a sweep, all trials), with a Wilson 95% interval. A model run in several
 * modes, transforms or model settings (endpoint, temperature, ...) of one suite has a row per variant.
 */
export function leaderboard(reports: readonly RunReport[]): Leaderboard {
  const suites = [...new Set(reports.map((report) => report.summary.suite))].sort();
  const rowOf = modelVariantLabeller(reports);
  const models = [...new Set(reports.map(rowOf))];
  const rows = models.map((model) => {
    const cells: Record<string, LeaderboardCell | null> = {};
    for (const suite of suites) {
      const runs = reports.filter((report) => rowOf(report) === model && report.summary.suite === suite);
      const scored = runs.reduce((sum, report) => sum + report.summary.episodes, 0);
      const passed = runs.reduce((sum, report) => sum + Math.round(report.summary.passRate * report.summary.episodes), 0);
      cells[suite] = runs.length === 0 ? null : { runs: runs.length, scored, passed, passRate: scored === 0 ? 0 : passed / scored, passRateCI95: wilsonInterval(passed, scored) };
    }
    const covered = Object.values(cells).filter((cell): cell is LeaderboardCell => cell !== null && cell.scored > 0);
    const meanPassRate = covered.length === 0 ? null : covered.reduce((sum, cell) => sum + cell.passRate, 0) / covered.length;
    return { model, meanPassRate, cells, covered: covered.length };
  });
  rows.sort((left, right) => right.covered - left.covered || (right.meanPassRate ?? 0) - (left.meanPassRate ?? 0) || (left.model < right.model ? -1 : 1));
  return { suites, rows: rows.map(({ model, meanPassRate, cells }) => ({ model, meanPassRate, cells })) };
}

import { wilsonInterval } from '../metrics/wilson-interval.ts';
import type { DifficultyLevel } from '../suites/difficulty-axis.ts';
import type { ReportSummary, RunReport } from './run-report.ts';
import { modelVariantLabeller } from './model-variant.ts';

/** Accuracy of one model (series) at one level of an axis, pooled over every run of the report. */
export type DifficultyPoint = {
  series: string;
  level: DifficultyLevel;
  /** Scored episodes at this level (infrastructure errors excluded). */
  scored: number;
  passed: number;
  passRate: number;
  passRateCI95: [number, number];
  /** Failed episodes by failure code (codes seen only). */
  failures: Record<string, number>;
};

/** Accuracy along one difficulty axis of one suite: one series per model. */
export type DifficultyCurve = {
  suite: string;
  axis: string;
  description: string;
  /** Levels in order: numbers ascending, then text. */
  levels: DifficultyLevel[];
  series: string[];
  /** By series, then level. */
  points: DifficultyPoint[];
};

/** What the curves read of a run report: its suite, model and mode, its episodes and its tasks' levels. */
export type DifficultyInput = Pick<RunReport, 'episodes' | 'difficultyAxes' | 'taskLevels' | 'transforms' | 'modelSettings'> & { summary: Pick<ReportSummary, 'suite' | 'model' | 'mode'> };

/**
 * For every suite in the report and every difficulty axis of it that takes two or more levels across
 * the report's scored episodes (one run's tasks, or the runs of a sweep), the pass rate per model and
 * level with its Wilson 95% interval, and the failure codes behind it. Each episode counts at its
 * task's level, so runs of the same model at different grid points pool into one curve. A series is
 * the model reference, with the mode, transforms or model settings when one model ran a suite with several (model-variant.ts).
 */
export function difficultyCurves(reports: readonly DifficultyInput[]): DifficultyCurve[] {
  const suites = [...new Set(reports.map((report) => report.summary.suite))];
  const curves: DifficultyCurve[] = [];
  for (const suite of suites) {
    const suiteReports = reports.filter((report) => report.summary.suite === suite);
    const axes = suiteReports.find((report) => report.difficultyAxes)?.difficultyAxes ?? [];
    const seriesOf = modelVariantLabeller(suiteReports);
    type Tally = Map<string, { series: string; level: DifficultyLevel; scored: number; passed: number; failures: Record<string, number> }>;
    // One pass over each run's episodes for every axis at once: a stored run's episodes are read from the store per pass.
    const tallies: Tally[] = axes.map(() => new Map());
    for (const report of suiteReports) {
      if (axes.length === 0) break;
      const series = seriesOf(report);
      for (const episode of report.episodes) {
        if (episode.status !== 'scored' || !episode.score) continue;
        const levels = report.taskLevels?.[episode.taskId];
        for (const [index, axis] of axes.entries()) {
          const level = levels?.[axis.name];
          if (level === undefined) continue;
          const tally = tallies[index];
          const key = JSON.stringify([series, level]);
          const entry = tally.get(key) ?? { series, level, scored: 0, passed: 0, failures: {} };
          entry.scored += 1;
          if (episode.score.passed) entry.passed += 1;
          else {
            const code = episode.score.failure ?? 'result.wrong';
            entry.failures[code] = (entry.failures[code] ?? 0) + 1;
          }
          tally.set(key, entry);
        }
      }
    }
    for (const [index, axis] of axes.entries()) {
      const tally = tallies[index];
      const levels = sortLevels([...new Map([...tally.values()].map((entry) => [JSON.stringify(entry.level), entry.level])).values()]);
      if (levels.length < 2) continue;
      const series = [...new Set([...tally.values()].map((entry) => entry.series))].sort();
      const points: DifficultyPoint[] = [];
      for (const name of series) {
        for (const level of levels) {
          const entry = tally.get(JSON.stringify([name, level]));
          if (!entry) continue;
          points.push({
            series: name, level, scored: entry.scored, passed: entry.passed, passRate: entry.passed / entry.scored,
            passRateCI95: wilsonInterval(entry.passed, entry.scored), failures: sortedCounts(entry.failures),
          });
        }
      }
      curves.push({ suite, axis: axis.name, description: axis.description, levels, series, points });
    }
  }
  return curves;
}

export function sortLevels(levels: readonly DifficultyLevel[]): DifficultyLevel[] {
  return [...levels].sort((left, right) => {
    if (typeof left === 'number' && typeof right === 'number') return left - right;
    if (typeof left === 'number') return -1;
    if (typeof right === 'number') return 1;
    return left < right ? -1 : left > right ? 1 : 0;
  });
}

function sortedCounts(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)));
}

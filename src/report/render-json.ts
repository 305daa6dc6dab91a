import { ConfigError } from '../core/errors.ts';
import type { ReportTable } from '../suites/spec.ts';
import type { RunReport, TasksIncomplete } from './run-report.ts';
import { summaryObject } from './run-report.ts';
import type { TaskResult } from './task-results.ts';
import { taskResults } from './task-results.ts';
import type { DifficultyCurve } from './difficulty-curves.ts';
import { difficultyCurves } from './difficulty-curves.ts';
import type { Leaderboard } from './leaderboard.ts';
import type { PriceTable } from './model-prices.ts';
import type { ReportAnalysis } from './report-analysis.ts';
import { analyzeReports } from './report-analysis.ts';
import type { RunCosts } from './run-costs.ts';
import { runCosts } from './run-costs.ts';
import type { ReportedComparison } from './run-comparisons.ts';
import type { SweepMembership } from '../runner/sweep-membership.ts';
import { checkRunReports } from './render-table.ts';

export type RunReportJson = ReturnType<typeof summaryObject> & {
  startedAt: string | null;
  tables: ReportTable[];
  taskResults: TaskResult[];
  /** Tokens, cost and latency percentiles. */
  usage: Omit<RunCosts, 'runId' | 'model'>;
  /** Accuracy along each difficulty axis that varies across this run's tasks. */
  difficulty: DifficultyCurve[];
  sweep: SweepMembership | null;
  /** The run's transforms as one label (`rename-tools + drift:op=all`); null when its tasks are untransformed. */
  transforms: string | null;
  /** The model's endpoint and generation settings as one label (`base-url=..., temperature=0.7`); null for none. */
  modelSettings: string | null;
  /** As `runs` shows it: running, finished, cancelled, failed, or interrupted (killed); null when not read from a store. */
  status: string | null;
  /** Episodes of its tasks not run yet (a run stopped before it ended). */
  missingEpisodes: number;
  /** Present for a run stopped while its tasks were still being stored (`tasks` counts those stored). */
  tasksIncomplete?: TasksIncomplete;
};

/** Several runs: each run's object, and what spans them. */
export type ReportJson = {
  runs: RunReportJson[];
  leaderboard: Leaderboard | null;
  /** Accuracy along each difficulty axis that varies across the runs (a sweep's grid, pooled per model). */
  difficulty: DifficultyCurve[];
  comparisons: (ReportedComparison['comparison'] & { suite: string; trialsNeeded: ReportedComparison['trialsNeeded'] | null })[];
};

/**
 * The `run --json` summary plus the suite's tables, per-task results, usage, difficulty and sweep. `computed` takes the
 * run's costs and curves when a caller has them already (each is a pass over a stored run's episodes).
 */
export function runReportJson(report: RunReport, prices?: PriceTable, computed: { costs?: RunCosts; difficulty?: DifficultyCurve[] } = {}): RunReportJson {
  const costs = computed.costs ?? runCosts(report, prices);
  const usage = { inputTokens: costs.inputTokens, outputTokens: costs.outputTokens, costUsd: costs.costUsd, latencyMs: costs.latencyMs };
  return {
    ...summaryObject(report.summary),
    startedAt: report.startedAt,
    tables: report.summary.tables.map((table) => ({ title: table.title, columns: [...table.columns], rows: table.rows.map((row) => [...row]) })),
    taskResults: taskResults(report.episodes),
    usage,
    difficulty: computed.difficulty ?? difficultyCurves([report]),
    sweep: report.sweep ?? null,
    transforms: report.transforms || null,
    modelSettings: report.modelSettings || null,
    status: report.status ?? null,
    missingEpisodes: report.summary.missingEpisodes ?? 0,
    ...(report.summary.tasksIncomplete ? { tasksIncomplete: report.summary.tasksIncomplete } : {}),
  };
}

/** One run prints its object; several print an array of them (the viewer's /api/runs). */
export function renderJson(reports: readonly RunReport[], options: { single: boolean; prices?: PriceTable }): string {
  checkJsonArguments('renderJson', reports, options);
  const objects = reports.map((report) => runReportJson(report, options.prices));
  return `${JSON.stringify(options.single && objects.length === 1 ? objects[0] : objects, null, 2)}\n`;
}

/** `report --format json`: one run's object, or for several runs a ReportJson. */
export function renderReportJson(
  reports: readonly RunReport[],
  options: { single: boolean; prices?: PriceTable; comparisons?: readonly ReportedComparison[]; analysis?: ReportAnalysis },
): string {
  checkJsonArguments('renderReportJson', reports, options);
  // The analysis's costs are each run's at the same prices; with one run its curves are the run's own.
  const computed = (index: number) => (options.analysis ? { costs: options.analysis.costs[index], ...(reports.length === 1 ? { difficulty: options.analysis.difficulty } : {}) } : {});
  if (options.single && reports.length === 1) return `${JSON.stringify(runReportJson(reports[0], options.prices, computed(0)), null, 2)}\n`;
  const analysis = options.analysis ?? analyzeReports(reports, { prices: options.prices });
  const json: ReportJson = {
    runs: reports.map((report, index) => runReportJson(report, options.prices, computed(index))),
    leaderboard: analysis.leaderboard,
    difficulty: analysis.difficulty,
    comparisons: (options.comparisons ?? []).map(({ suite, comparison, trialsNeeded }) => ({ suite, ...comparison, trialsNeeded: trialsNeeded ?? null })),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** A library caller's arguments, named when wrong, before a renderer reads them (a TypeError from inside says nothing). */
function checkJsonArguments(functionName: string, reports: unknown, options: unknown): void {
  checkRunReports(functionName, reports);
  const single = typeof options === 'object' && options !== null ? (options as { single?: unknown }).single : undefined;
  if (typeof single !== 'boolean') {
    const got = typeof options === 'object' && options !== null ? String(single) : `${String(options)} (no options)`;
    throw new ConfigError('config.invalid', `${functionName}: options.single must be true or false, got ${got}`, {
      fix: 'pass { single: true } to print one run as an object, or { single: false } for a list of runs',
    });
  }
}

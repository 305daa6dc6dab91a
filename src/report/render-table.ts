import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { formatFieldPath } from '../core/field-path.ts';
import type { ReportTable } from '../suites/spec.ts';
import { formatInterval, formatPercent, sweepPointLabel } from './format-figure.ts';
import type { ReportSummary, RunReport } from './run-report.ts';
import { textTable } from './text-table.ts';
import type { ReportedComparison } from './run-comparisons.ts';
import { comparisonTable } from './run-comparisons.ts';
import type { ReportAnalysis } from './report-analysis.ts';
import { analyzeReports } from './report-analysis.ts';
import { costsTable, difficultyTable, failuresByDifficultyTable, leaderboardTable } from './analysis-tables.ts';

/**
 * What a report reads of each run, checked where a library caller hands it over: a wrong argument (nothing, a run id,
 * runEvaluation's summary) is named with what to pass, not met later as a TypeError inside a renderer. Numbers may be
 * NaN (a metric over no episodes), so any number passes.
 */
const anyNumber = z.custom<number>((value) => typeof value === 'number', 'expected a number');
const reportSummarySchema = z.object({
  runId: z.string(), suite: z.string(), model: z.string(), mode: z.string(),
  tasks: anyNumber, trials: anyNumber, episodes: anyNumber, infrastructureErrors: anyNumber, missingEpisodes: anyNumber.optional(),
  passRate: anyNumber, passRateCI95: z.array(anyNumber).length(2),
  metrics: z.record(z.string(), anyNumber), failures: z.record(z.string(), anyNumber), retries: z.record(z.string(), anyNumber).optional(),
  tables: z.array(z.object({ title: z.string(), columns: z.array(z.string()), rows: z.array(z.array(z.unknown())) })),
  tasksIncomplete: z.enum(['resumable', 'start-again']).optional(),
});
const runReportSchema = z.object({
  summary: reportSummarySchema,
  episodes: z.custom<Iterable<unknown>>((value) => typeof value === 'object' && value !== null && Symbol.iterator in value,
    'expected the run\'s episodes: an iterable (loadRunReport reads them from the store)'),
});

const reportsFix = "pass [loadRunReport(store, runId)] for each run, or build each report as RunReport describes ({ summary, startedAt, episodes })";

/** What a value is, for a message: `undefined`, `a string ('run-1')`, `a number (5)`, `an object`. */
function describeValue(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value === 'string') return `a string ('${value}')`;
  if (typeof value === 'number' || typeof value === 'boolean') return `a ${typeof value} (${value})`;
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** runEvaluation's RunSummary (and a report's summary) has these; a report has them under `summary`. */
function isRunSummary(value: unknown): value is { runId: unknown } {
  return typeof value === 'object' && value !== null && !('summary' in value) && 'runId' in value && 'passRate' in value;
}

/**
 * Throws a ConfigError naming the argument when `reports` is not a list of run reports (as loadRunReport returns
 * them). `functionName` is the renderer the caller called, for the message.
 */
export function checkRunReports(functionName: string, reports: unknown): asserts reports is readonly RunReport[] {
  const refuse = (problem: string, fix: string): never => {
    throw new ConfigError('config.invalid', `${functionName}: ${problem}`, { fix });
  };
  if (!Array.isArray(reports)) {
    const wanted = 'reports must be a list of run reports';
    if (typeof reports === 'string') refuse(`${wanted}, got ${describeValue(reports)}`, `pass [loadRunReport(store, '${reports}')] (or one report per run)`);
    if (isRunSummary(reports)) {
      refuse(`${wanted}, got a run summary (run '${String(reports.runId)}'), which has no episodes`, 'pass [loadRunReport(store, summary.runId)]: a report holds the run\'s episodes too');
    }
    if (typeof reports === 'object' && reports !== null && 'summary' in reports) refuse(`${wanted}, got one run report, not a list`, 'put it in a list: [report]');
    refuse(`${wanted}, got ${describeValue(reports)}`, reportsFix);
  }
  (reports as unknown[]).forEach((report, index) => {
    if (isRunSummary(report)) {
      refuse(`reports[${index}] is a run summary, not a run report (it has no episodes)`, `pass loadRunReport(store, summary.runId) in its place`);
    }
    const parsed = runReportSchema.safeParse(report);
    if (parsed.success) return;
    const issue = parsed.error.issues[0];
    const got = issue.path.length === 0 ? `expected a run report, got ${describeValue(report)}` : issue.message;
    refuse(`${formatFieldPath(issue.path, `reports[${index}]`)}: ${got}`, reportsFix);
  });
}

/** The console report of one run: headline figures, suite metrics, failures, the suite's own tables. */
export function renderRunTable(summary: ReportSummary): string {
  const parsed = reportSummarySchema.safeParse(summary);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const problem = issue.path.length === 0 ? `summary must be a run's summary, got ${describeValue(summary)}` : `${formatFieldPath(issue.path, 'summary')}: ${issue.message}`;
    throw new ConfigError('config.invalid', `renderRunTable: ${problem}`, { fix: 'pass the summary runEvaluation returns, or the summary of loadRunReport(store, runId)' });
  }
  return runTable(summary);
}

function tasksIncompleteLine(summary: ReportSummary): string[] {
  if (summary.tasksIncomplete === undefined) return [];
  const then = summary.tasksIncomplete === 'resumable'
    ? '`toolforge run --resume` stores the rest and runs their episodes'
    : 'nothing can make the rest of them again, so it cannot be continued: start it again';
  return [`its tasks were still being stored when it stopped (${summary.tasks} so far): ${then}`];
}

/** renderRunTable for a summary already checked. */
function runTable(summary: ReportSummary): string {
  const sections: string[] = [];
  const missingEpisodes = summary.missingEpisodes ?? 0;
  sections.push([
    `run ${summary.runId}: suite ${summary.suite}, model ${summary.model}, mode ${summary.mode}`,
    // Every one of tasks x trials episodes is scored, an infrastructure error, or not run yet: the parts add up to
    // the total, so a run stopped before it ended reads as such, not as a run of fewer episodes.
    `${summary.tasks} tasks x ${summary.trials} trials = ${summary.tasks * summary.trials} episodes:`
      + ` ${summary.episodes} scored, ${summary.infrastructureErrors} infrastructure errors (not scored)`
      + (missingEpisodes > 0 ? `, ${missingEpisodes} not run yet` : ''),
    // Its tasks count only those stored: without this line a run killed just after its stored tasks' episodes were
    // scored reads as a complete run of fewer tasks.
    ...tasksIncompleteLine(summary),
    // With nothing scored there is no rate: "0.0% [0.0%, 100.0%]" would read as a result.
    summary.episodes === 0
      ? 'pass rate: none (no episode scored)'
      : `pass rate ${formatPercent(summary.passRate)}  95% CI ${formatInterval(summary.passRateCI95)}`,
    ...retriesLine(summary.retries ?? {}),
  ].join('\n'));
  const metricNames = Object.keys(summary.metrics);
  if (metricNames.length > 0) {
    sections.push(textTable({ columns: ['metric', 'value'], rows: metricNames.map((name) => [name, summary.metrics[name]]) }));
  }
  const failures = Object.entries(summary.failures).filter(([, count]) => count > 0);
  sections.push(failures.length === 0
    ? 'failures: none'
    : textTable({ columns: ['failure', 'episodes'], rows: failures.map(([code, count]) => [code, count]) }));
  for (const table of summary.tables) sections.push(titledTable(table));
  return `${sections.join('\n\n')}\n`;
}

/**
 * The console report: one run's report, or for several an overview line per run, the leaderboard and
 * the paired comparisons first; then accuracy along each difficulty axis that varies, with failures by
 * level; tokens, cost and latency per run; then each run's own report.
 */
export function renderTable(
  reports: readonly RunReport[],
  options: { comparisons?: readonly ReportedComparison[]; analysis?: ReportAnalysis; /** Each run's own report at the end (default true). */ runDetails?: boolean } = {},
): string {
  checkRunReports('renderTable', reports);
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError('config.invalid', `renderTable: options must be an object ({ comparisons, analysis, runDetails }), got ${describeValue(options)}`, {
      fix: 'leave options out, or pass e.g. { runDetails: false }',
    });
  }
  if (reports.length === 0) return 'no runs recorded\n';
  const analysis = options.analysis ?? analyzeReports(reports);
  const sections: string[] = [];
  if (reports.length > 1) {
    const isSweep = reports.some((report) => report.sweep);
    const isTransformed = reports.some((report) => report.transforms);
    // Runs of one model at two endpoints or temperatures would otherwise be rows alike but for their ids.
    const isConfigured = new Set(reports.map((report) => report.modelSettings ?? '')).size > 1;
    sections.push(`${textTable({
      columns: ['run', 'suite', 'model', 'mode', ...(isTransformed ? ['transforms'] : []), ...(isConfigured ? ['model settings'] : []), ...(isSweep ? ['sweep point'] : []), 'episodes', 'pass rate', '95% CI'],
      rows: reports.map(({ summary, sweep, transforms, modelSettings }) => [summary.runId, summary.suite, summary.model, summary.mode, ...(isTransformed ? [transforms || '-'] : []),
        ...(isConfigured ? [modelSettings || '-'] : []),
        ...(isSweep ? [sweepPointLabel(sweep?.point)] : []), summary.episodes,
        summary.episodes === 0 ? '-' : formatPercent(summary.passRate), summary.episodes === 0 ? '-' : formatInterval(summary.passRateCI95)]),
    })}\n`);
    if (analysis.leaderboard) sections.push(`${titledTable(leaderboardTable(analysis.leaderboard))}\n`);
    const comparisons = options.comparisons ?? [];
    if (comparisons.length > 0) sections.push(`${titledTable(comparisonTable(comparisons))}\n`);
  }
  for (const curve of analysis.difficulty) {
    sections.push(`${titledTable(difficultyTable(curve))}\n`);
    const failures = failuresByDifficultyTable(curve);
    if (failures) sections.push(`${titledTable(failures)}\n`);
  }
  sections.push(`${titledTable(costsTable(analysis.costs))}\n`);
  if (reports.length === 1) return [runTable(reports[0].summary), ...sections].join('\n');
  return [...sections, ...(options.runDetails === false ? [] : reports.map((report) => runTable(report.summary)))].join('\n');
}

/** "retries 12: provider.rate-limited 10, provider.timeout 2", or nothing when there were none. */
function retriesLine(retries: Readonly<Record<string, number>>): string[] {
  const causes = Object.entries(retries).filter(([, count]) => count > 0).sort(([left], [right]) => left.localeCompare(right));
  if (causes.length === 0) return [];
  const total = causes.reduce((sum, [, count]) => sum + count, 0);
  return [`retries ${total}: ${causes.map(([cause, count]) => `${cause} ${count}`).join(', ')}`];
}

function titledTable(table: ReportTable): string {
  return `${table.title}\n${textTable(table)}`;
}

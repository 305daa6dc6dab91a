import type { ReportTable } from '../suites/spec.ts';
import { formatInterval, formatPercent, sweepPointLabel } from './format-figure.ts';
import type { ReportSummary, RunReport } from './run-report.ts';
import { textTable } from './text-table.ts';
import type { ReportedComparison } from './run-comparisons.ts';
import { comparisonTable } from './run-comparisons.ts';
import type { ReportAnalysis } from './report-analysis.ts';
import { analyzeReports } from './report-analysis.ts';
import { costsTable, difficultyTable, failuresByDifficultyTable, leaderboardTable } from './analysis-tables.ts';

/** The console report of one run: headline figures, suite metrics, failures, the suite's own tables. */
export function renderRunTable(summary: ReportSummary): string {
  const sections: string[] = [];
  sections.push([
    `run ${summary.runId}: suite ${summary.suite}, model ${summary.model}, mode ${summary.mode}`,
    `${summary.tasks} tasks x ${summary.trials} trials = ${summary.episodes} episodes`
      + ` (${summary.infrastructureErrors} infrastructure errors, not scored)`
      // A run stopped before it ended must not read as complete.
      + ((summary.missingEpisodes ?? 0) > 0 ? `; ${summary.missingEpisodes} not run yet` : ''),
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
  if (reports.length === 1) return [renderRunTable(reports[0].summary), ...sections].join('\n');
  return [...sections, ...(options.runDetails === false ? [] : reports.map((report) => renderRunTable(report.summary)))].join('\n');
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

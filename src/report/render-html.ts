import type { ReportTable } from '../suites/spec.ts';
import { costsTable, difficultyTable, failuresByDifficultyTable, leaderboardTable } from './analysis-tables.ts';
import { difficultyChart, failureChart, passRateChart, tableChart } from './charts.ts';
import type { ReportAnalysis } from './report-analysis.ts';
import { analyzeReports } from './report-analysis.ts';
import { formatCell, formatInterval, formatNumber, formatPercent, sweepPointLabel } from './format-figure.ts';
import type { RunReport } from './run-report.ts';
import { taskResults } from './task-results.ts';
import type { ReportedComparison } from './run-comparisons.ts';
import { comparisonTable } from './run-comparisons.ts';

/**
 * A static, self-contained HTML report: inline CSS and inline SVG charts, no scripts, no external
 * requests. Identical data gives identical bytes (no timestamps other than the runs' own).
 */
export type HtmlOptions = {
  title?: string;
  /** Link each task to its transcripts page (the `view` server has one; a static file does not). */
  linkTasks?: boolean;
  /** Paired comparisons between the runs (see compareWithFirstRuns). */
  comparisons?: readonly ReportedComparison[];
  /** Difficulty curves, leaderboard and costs (default: analyzeReports with the default prices). */
  analysis?: ReportAnalysis;
  /** Said under the title: e.g. which runs a group report left out and why. */
  notes?: readonly string[];
};

export function renderHtml(reports: readonly RunReport[], options: HtmlOptions = {}): string {
  const title = options.title ?? 'ToolForge report';
  const summaries = reports.map((report) => report.summary);
  const body: string[] = [`<h1>${escapeHtml(title)}</h1>`, ...(options.notes ?? []).map((note) => `<p class="note">Note: ${escapeHtml(note)}</p>`)];
  if (reports.length === 0) {
    body.push('<p>No runs recorded.</p>');
  } else {
    const isSweep = reports.some((report) => report.sweep);
    const isTransformed = reports.some((report) => report.transforms);
    // Runs of one model at two endpoints or temperatures would otherwise be rows alike but for their ids.
    const isConfigured = new Set(reports.map((report) => report.modelSettings ?? '')).size > 1;
    // A run stopped before it ended: scored, infrastructure errors and not run yet add up to tasks x trials.
    const isPartial = summaries.some((summary) => (summary.missingEpisodes ?? 0) > 0);
    body.push('<section><h2>Runs</h2>', htmlTable({
      title: '',
      columns: ['run', 'suite', 'model', 'mode', ...(isTransformed ? ['transforms'] : []), ...(isConfigured ? ['model settings'] : []), ...(isSweep ? ['sweep point'] : []), 'started', 'tasks', 'trials', 'scored episodes', 'infrastructure errors', ...(isPartial ? ['not run yet'] : []), 'pass rate', '95% CI'],
      rows: summaries.map((summary, index) => [summary.runId, summary.suite, summary.model, summary.mode, ...(isTransformed ? [reports[index].transforms || '-'] : []),
        ...(isConfigured ? [reports[index].modelSettings || '-'] : []),
        ...(isSweep ? [sweepPointLabel(reports[index].sweep?.point)] : []),
        reports[index].startedAt, summary.tasks, summary.trials, summary.episodes, summary.infrastructureErrors,
        ...(isPartial ? [summary.missingEpisodes ?? 0] : []), formatPercent(summary.passRate),
        formatInterval(summary.passRateCI95)]),
    }), '<h3>Pass rate</h3>', `<figure>${passRateChart(summaries)}</figure>`);
    const failures = failureChart(summaries);
    body.push('<h3>Failures</h3>', failures ? `<figure>${failures}</figure>` : '<p>No failed episodes.</p>');
    const analysis = options.analysis ?? analyzeReports(reports);
    if (analysis.leaderboard) body.push('<h3>Leaderboard</h3>', htmlTable(leaderboardTable(analysis.leaderboard)));
    const comparisons = options.comparisons ?? [];
    if (comparisons.length > 0) body.push('<h3>Paired comparisons</h3>', htmlTable(comparisonTable(comparisons)));
    body.push('</section>');
    if (analysis.difficulty.length > 0) {
      body.push('<section id="difficulty"><h2>Difficulty</h2>');
      for (const curve of analysis.difficulty) {
        const failures = failuresByDifficultyTable(curve);
        body.push(`<h3>${escapeHtml(curve.suite)}: accuracy by ${escapeHtml(curve.axis)}</h3>`,
          `<figure class="difficulty-chart">${difficultyChart(curve)}</figure>`, htmlTable(difficultyTable(curve)), ...(failures ? [htmlTable(failures)] : []));
      }
      body.push('</section>');
    }
    body.push('<section id="costs"><h2>Cost and latency</h2>', htmlTable(costsTable(analysis.costs)), '</section>');
    for (const report of reports) body.push(runSection(report, options));
  }
  return pageShell(title, body);
}

/** The document around a report body: inline style only (the report's, or the caller's), nothing fetched. */
export function pageShell(title: string, body: readonly string[], pageStyle: string = style): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${pageStyle}</style>`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function runSection(report: RunReport, options: HtmlOptions): string {
  const { summary } = report;
  const parts = [
    `<section id="run-${escapeHtml(summary.runId)}">`,
    `<h2>Run ${escapeHtml(summary.runId)}</h2>`,
    `<p>Suite <b>${escapeHtml(summary.suite)}</b>, model <b>${escapeHtml(summary.model)}</b>, mode <b>${escapeHtml(summary.mode)}</b>: `
      + `${summary.tasks} tasks × ${summary.trials} trials = ${summary.episodes} episodes, `
      + `${summary.infrastructureErrors} infrastructure errors (not scored). `
      + `Pass rate <b>${formatPercent(summary.passRate)}</b>, 95% CI ${formatInterval(summary.passRateCI95)}.</p>`,
  ];
  const metricNames = Object.keys(summary.metrics);
  if (metricNames.length > 0) {
    parts.push(htmlTable({ title: 'Suite metrics', columns: ['metric', 'value'], rows: metricNames.map((name) => [name, summary.metrics[name]]) }));
  }
  const failures = Object.entries(summary.failures).filter(([, count]) => count > 0);
  parts.push(failures.length === 0
    ? '<p>No failed episodes.</p>'
    : htmlTable({ title: 'Failures', columns: ['failure', 'episodes'], rows: failures }));
  // Retried requests cost time and money but were never scored: shown by cause, as the CLI summary shows them.
  const retries = Object.entries(summary.retries ?? {}).filter(([, count]) => count > 0).sort(([left], [right]) => left.localeCompare(right));
  if (retries.length > 0) parts.push(htmlTable({ title: 'Model requests retried (by cause; not scored)', columns: ['cause', 'retries'], rows: retries }));
  for (const table of summary.tables) {
    parts.push(htmlTable(table));
    const chart = tableChart(table);
    if (chart) parts.push(`<figure>${chart}</figure>`);
  }
  const tasks = taskResults(report.episodes);
  parts.push(`<details><summary>Per-task results (${tasks.length} tasks)</summary>`, htmlTable({
    title: '',
    columns: ['task', 'scored', 'passed', 'mean score', 'failures', 'infrastructure errors'],
    rows: tasks.map((task) => [options.linkTasks ? { href: `/runs/${encodeURIComponent(summary.runId)}/tasks/${encodeURIComponent(task.taskId)}`, text: task.taskId } : task.taskId, task.scored, task.passed, task.meanScore === null ? null : formatNumber(task.meanScore),
      task.failures.join(', '), task.infrastructureErrors]),
  }), '</details>', '</section>');
  return parts.join('\n');
}

/** A table cell: a value, or (in the viewer) a link. */
export type HtmlCell = string | number | null | { href: string; text: string };

export function htmlTable(table: { title: string; columns: readonly string[]; rows: readonly (readonly HtmlCell[])[] }): string {
  const caption = table.title ? `<caption>${escapeHtml(table.title)}</caption>` : '';
  const head = `<tr>${table.columns.map((column) => `<th>${escapeHtml(column)}</th>`).join('')}</tr>`;
  const rows = table.rows.map((row) => `<tr>${table.columns.map((_, index) => {
    const value = row[index] ?? null;
    if (value !== null && typeof value === 'object') return `<td><a href="${escapeHtml(value.href)}">${escapeHtml(value.text)}</a></td>`;
    return `<td${typeof value === 'number' ? ' class="number"' : ''}>${escapeHtml(formatCell(value))}</td>`;
  }).join('')}</tr>`);
  return `<table>${caption}<thead>${head}</thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
}

export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

const style = [
  'body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:64rem;padding:0 1rem;color:#1b1b1b}',
  'table{border-collapse:collapse;margin:0.75rem 0;font-size:0.9rem}',
  'caption{text-align:left;font-weight:600;padding:0.25rem 0}',
  'th,td{border-bottom:1px solid #ddd;padding:0.25rem 0.6rem;text-align:left}',
  'td.number{text-align:right;font-variant-numeric:tabular-nums}',
  'section{margin-bottom:2.5rem}',
  'figure{margin:0.5rem 0}',
  'pre{white-space:pre-wrap;margin:0.25rem 0;font-size:0.85rem}',
  '.message{border-left:3px solid #ccc;padding:0.25rem 0.75rem;margin:0.5rem 0}',
  '.message.assistant{border-color:#4269d0}',
  '.message.tool.ok{border-color:#3ca951}',
  '.message.tool.error{border-color:#ff725c}',
  'pre.call{color:#4269d0}',
].join('');

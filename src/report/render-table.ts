import type { ReportTable } from '../suites/spec.ts';
import { formatInterval, formatPercent } from './format-figure.ts';
import type { ReportSummary, RunReport } from './run-report.ts';
import { textTable } from './text-table.ts';
import type { ReportedComparison } from './run-comparisons.ts';
import { comparisonTable } from './run-comparisons.ts';

/** The console report of one run: headline figures, suite metrics, failures, the suite's own tables. */
export function renderRunTable(summary: ReportSummary): string {
  const sections: string[] = [];
  sections.push([
    `run ${summary.runId}: suite ${summary.suite}, model ${summary.model}, mode ${summary.mode}`,
    `${summary.tasks} tasks x ${summary.trials} trials = ${summary.episodes} episodes`
      + ` (${summary.infrastructureErrors} infrastructure errors, not scored)`,
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

/** Several runs: an overview line per run, the paired comparisons if any, then each run's report. */
export function renderTable(reports: readonly RunReport[], options: { comparisons?: readonly ReportedComparison[] } = {}): string {
  if (reports.length === 0) return 'no runs recorded\n';
  if (reports.length === 1) return renderRunTable(reports[0].summary);
  const overview = textTable({
    columns: ['run', 'suite', 'model', 'mode', 'episodes', 'pass rate', '95% CI'],
    rows: reports.map(({ summary }) => [summary.runId, summary.suite, summary.model, summary.mode, summary.episodes,
      summary.episodes === 0 ? '-' : formatPercent(summary.passRate), summary.episodes === 0 ? '-' : formatInterval(summary.passRateCI95)]),
  });
  const comparisons = options.comparisons ?? [];
  const compared = comparisons.length > 0 ? [`${titledTable(comparisonTable(comparisons))}\n`] : [];
  return [`${overview}\n`, ...compared, ...reports.map((report) => renderRunTable(report.summary))].join('\n');
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

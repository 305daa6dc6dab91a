import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import type { ReportSummary } from './run-report.ts';

/**
 * Charts drawn at build time into inline SVG (Observable Plot on a linkedom document: no browser,
 * byte-identical output for identical data).
 */
function chartDocument(): Document {
  return parseHTML('<!doctype html><html><head></head><body></body></html>').document as unknown as Document;
}

export function runLabel(summary: ReportSummary): string {
  return `${summary.runId} · ${summary.suite} · ${summary.model}`;
}

/** Pass rate per run as a dot, with its Wilson 95% interval as a horizontal rule. */
export function passRateChart(summaries: readonly ReportSummary[]): string {
  const rows = summaries.map((summary) => ({
    run: runLabel(summary), passRate: summary.passRate, low: summary.passRateCI95[0], high: summary.passRateCI95[1],
  }));
  const chart = Plot.plot({
    document: chartDocument(),
    width: 760,
    height: 40 + 28 * rows.length,
    marginLeft: 300,
    x: { domain: [0, 1], percent: true, grid: true, label: 'pass rate (%) with 95% CI' },
    y: { label: null, domain: rows.map((row) => row.run) },
    marks: [
      Plot.ruleY(rows, { y: 'run', x1: 'low', x2: 'high', strokeWidth: 2, stroke: '#4269d0' }),
      Plot.dot(rows, { y: 'run', x: 'passRate', r: 5, fill: '#4269d0' }),
      Plot.text(rows, { y: 'run', x: 'high', text: (row: { passRate: number }) => `${(row.passRate * 100).toFixed(1)}%`, dx: 22 }),
    ],
  });
  return chart.outerHTML;
}

/** Failed episodes per run, stacked by failure code. */
export function failureChart(summaries: readonly ReportSummary[]): string | null {
  const rows = summaries.flatMap((summary) => Object.entries(summary.failures)
    .filter(([, count]) => count > 0)
    .map(([code, count]) => ({ run: runLabel(summary), code, count })));
  if (rows.length === 0) return null;
  const chart = Plot.plot({
    document: chartDocument(),
    width: 760,
    height: 60 + 28 * summaries.length,
    marginLeft: 300,
    x: { grid: true, label: 'failed episodes' },
    y: { label: null, domain: summaries.map(runLabel) },
    color: { legend: true, domain: [...new Set(rows.map((row) => row.code))].sort(), scheme: 'tableau10' },
    marks: [Plot.barX(rows, { y: 'run', x: 'count', fill: 'code', tip: false }), Plot.ruleX([0])],
  });
  return chart.outerHTML;
}

import { createRequire } from 'node:module';
import type * as PlotModule from '@observablehq/plot';
import type * as LinkedomModule from 'linkedom';
import type { DifficultyLevel } from '../suites/difficulty-axis.ts';
import type { ReportTable } from '../suites/spec.ts';
import type { DifficultyCurve } from './difficulty-curves.ts';
import type { ReportSummary } from './run-report.ts';

/**
 * Charts drawn at build time into inline SVG (Observable Plot on a linkedom document: no browser,
 * byte-identical output for identical data).
 */
// Plot and linkedom take ~45 MB of memory: they are loaded when the first chart is drawn, not by every command
// that imports the library (a run never draws one).
const requireModule = createRequire(import.meta.url);
let plotModule: typeof PlotModule | undefined;
const Plot = new Proxy({} as typeof PlotModule, {
  get: (_target, name) => {
    plotModule ??= requireModule('@observablehq/plot') as typeof PlotModule;
    return plotModule[name as keyof typeof PlotModule];
  },
});

function chartDocument(): Document {
  const { parseHTML } = requireModule('linkedom') as typeof LinkedomModule;
  return parseHTML('<!doctype html><html><head></head><body></body></html>').document as unknown as Document;
}

/** The run id names the suite already (`funcgen-20260101-...`). */
export function runLabel(summary: ReportSummary): string {
  return `${summary.runId} · ${summary.model}`;
}

/** Room for the longest run label at Plot's 10px sans-serif (about 6px a character). */
function labelMargin(labels: readonly string[]): number {
  return Math.min(460, 16 + 6 * Math.max(0, ...labels.map((label) => label.length)));
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
    marginLeft: labelMargin(rows.map((row) => row.run)),
    marginRight: 56,
    // `percent` scales values by 100, so the domain is given in percent.
    x: { domain: [0, 100], percent: true, grid: true, label: 'pass rate (%) with 95% CI' },
    y: { label: null, domain: rows.map((row) => row.run) },
    marks: [
      Plot.ruleY(rows, { y: 'run', x1: 'low', x2: 'high', strokeWidth: 2, stroke: '#4269d0' }),
      Plot.dot(rows, { y: 'run', x: 'passRate', r: 4, fill: '#4269d0' }),
      Plot.text(rows, { y: 'run', x: 'high', text: (row: { passRate: number }) => `${(row.passRate * 100).toFixed(1)}%`, dx: 8, textAnchor: 'start' }),
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
    marginLeft: labelMargin(summaries.map(runLabel)),
    x: { grid: true, label: 'failed episodes' },
    y: { label: null, domain: summaries.map(runLabel) },
    color: { legend: true, domain: [...new Set(rows.map((row) => row.code))].sort(), scheme: 'tableau10' },
    marks: [Plot.barX(rows, { y: 'run', x: 'count', fill: 'code', tip: false }), Plot.ruleX([0])],
  });
  return chart.outerHTML;
}

/**
 * Accuracy along one difficulty axis: a line per model through its pass rate at each level, over a
 * band of its Wilson 95% interval. Numeric levels sit on a linear axis (gaps between grid values
 * show); text levels are evenly spaced categories.
 */
export function difficultyChart(curve: DifficultyCurve): string {
  const isNumeric = curve.levels.every((level) => typeof level === 'number');
  const rows = curve.points.map((point) => ({
    series: point.series, level: point.level, passRate: point.passRate * 100, low: point.passRateCI95[0] * 100, high: point.passRateCI95[1] * 100,
  }));
  const chart = Plot.plot({
    document: chartDocument(),
    width: 640,
    height: 300,
    marginLeft: 48,
    marginBottom: 40,
    x: isNumeric
      ? { label: curve.axis, ticks: curve.levels as number[], tickFormat: (value: number) => String(value), inset: 12 }
      : { label: curve.axis, type: 'point', domain: curve.levels.map(String), inset: 12 },
    y: { domain: [0, 100], grid: true, label: 'pass rate (%) with 95% CI' },
    color: { legend: true, domain: curve.series, scheme: 'tableau10' },
    marks: [
      Plot.areaY(rows, { x: isNumeric ? 'level' : (row: { level: DifficultyLevel }) => String(row.level), y1: 'low', y2: 'high', z: 'series', fill: 'series', fillOpacity: 0.15, curve: 'linear' }),
      Plot.line(rows, { x: isNumeric ? 'level' : (row: { level: DifficultyLevel }) => String(row.level), y: 'passRate', z: 'series', stroke: 'series', strokeWidth: 2 }),
      Plot.dot(rows, { x: isNumeric ? 'level' : (row: { level: DifficultyLevel }) => String(row.level), y: 'passRate', fill: 'series', r: 3 }),
    ],
  });
  return chart.outerHTML;
}

/**
 * The chart a suite's table asks for (`table.chart`): a line per named column against the x column, one panel per
 * value of the panel column. Throws when a named column is not in the table (a suite's mistake, caught by its tests).
 */
export function tableChart(table: ReportTable): string | null {
  const chart = table.chart;
  if (!chart) return null;
  const column = (name: string): number => {
    const index = table.columns.indexOf(name);
    if (index < 0) throw new Error(`table '${table.title}' charts column '${name}', which it does not have`);
    return index;
  };
  const x = column(chart.x);
  const panel = chart.panel === undefined ? undefined : column(chart.panel);
  const rows = chart.lines.flatMap((line) => {
    const index = column(line);
    return table.rows.filter((row) => typeof row[index] === 'number' && typeof row[x] === 'number')
      .map((row) => ({ x: row[x] as number, y: row[index] as number, line, panel: panel === undefined ? '' : String(row[panel]) }));
  });
  if (rows.length === 0) return null;
  const panels = [...new Set(rows.map((row) => row.panel))];
  const plot = Plot.plot({
    document: chartDocument(),
    width: 640,
    height: 60 + 220 * panels.length,
    marginLeft: 48,
    marginRight: panel === undefined ? 20 : 80,
    marginBottom: 40,
    x: { label: chart.x, grid: true },
    y: { label: chart.yLabel, grid: true, ...(chart.yDomain ? { domain: chart.yDomain } : {}) },
    ...(panel === undefined ? {} : { fy: { label: null, domain: panels } }),
    color: { legend: true, domain: chart.lines, scheme: 'tableau10' },
    marks: [
      Plot.line(rows, { x: 'x', y: 'y', z: 'line', stroke: 'line', strokeWidth: 2, ...(panel === undefined ? {} : { fy: 'panel' }) }),
      Plot.dot(rows, { x: 'x', y: 'y', fill: 'line', r: 3, ...(panel === undefined ? {} : { fy: 'panel' }) }),
    ],
  });
  return plot.outerHTML;
}

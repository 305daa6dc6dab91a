/**
 * The suite summary: Table V's metrics over every scored episode (each episode is one sample), the
 * key-metrics table of the paper's Table III (full completion) or IV (argument completion), the
 * complete Table V with (t) and (e) columns, and a per-API breakdown as in Tables VIII-XI.
 */
import { isJsonObject } from '../../core/json.ts';
import type { ReportTable, ScoredEpisode, ScoredEpisodes, SuiteSummary } from '../spec.ts';
import type { SampleStatistics } from './sample-statistics.ts';
import type { WebapiRequestDetails } from './webapi-details.ts';
import type { WebapiMetricName } from './webapi-metrics.ts';
import { computeWebapiMetrics, executableSuffix, tableVMetrics } from './webapi-metrics.ts';
import type { Setup } from './prompt.ts';

type Row = { name: WebapiMetricName; variant: 't' | 'e' };

/** The rows of the paper's Table III (full completion) and Table IV (argument completion). */
const keyRows: Record<Setup, Row[]> = {
  full: [
    { name: 'correctImplementations', variant: 't' },
    { name: 'correctUrls', variant: 'e' },
    { name: 'illegalUrls', variant: 'e' },
    { name: 'correctMethods', variant: 'e' },
    { name: 'illegalMethods', variant: 'e' },
    { name: 'meanArgumentPrecision', variant: 'e' },
    { name: 'meanArgumentRecall', variant: 'e' },
    { name: 'meanArgumentValueConditionalAccuracy', variant: 'e' },
  ],
  argument: [
    { name: 'correctImplementations', variant: 't' },
    { name: 'illegalImplementations', variant: 'e' },
    { name: 'meanArgumentPrecision', variant: 'e' },
    { name: 'meanArgumentRecall', variant: 'e' },
    { name: 'illegalArguments', variant: 'e' },
    { name: 'meanArgumentValueConditionalAccuracy', variant: 'e' },
  ],
};

const setupTitles: Record<Setup, string> = { full: 'Full Completion', argument: 'Argument Completion' };

export type WebapiSample = { api: string; setup: Setup; statistics: SampleStatistics };

export function webapiSampleOf(episode: ScoredEpisode<WebapiRequestDetails>): WebapiSample | undefined {
  const details = episode.score.details;
  if (!details) return undefined;
  const expected = episode.task.expected;
  const setup: Setup = isJsonObject(expected) && expected.setup === 'argument' ? 'argument' : 'full';
  return { api: details.api, setup, statistics: details.statistics };
}

export function summarizeWebapi(episodes: ScoredEpisodes<WebapiRequestDetails>): SuiteSummary {
  // One small record per episode (api, setup, counts), not the episodes: Table V's means are taken in episode order.
  const samples = Array.from(episodes, webapiSampleOf).filter((sample): sample is WebapiSample => sample !== undefined);
  const metrics = computeWebapiMetrics(samples.map((sample) => sample.statistics));
  const tables: ReportTable[] = [];
  for (const setup of ['full', 'argument'] as const) {
    const ofSetup = samples.filter((sample) => sample.setup === setup);
    if (ofSetup.length === 0) continue;
    const setupMetrics = computeWebapiMetrics(ofSetup.map((sample) => sample.statistics));
    tables.push({
      title: `Evaluation results for ${setupTitles[setup]} (paper Table ${setup === 'full' ? 'III' : 'IV'})`,
      columns: ['Metric', 'Value'],
      rows: keyRows[setup].map((row) => [rowLabel(row), round(value(setupMetrics, row))]),
    });
  }
  tables.push({
    title: 'Complete evaluation metrics (paper Table V)',
    columns: ['Metric', '(t)', '(e)'],
    rows: tableVMetrics.map((metric) => [
      metric.label,
      metric.kind === 'count' ? metrics[metric.name] : round(metrics[metric.name]),
      metric.kind === 'ratio' ? round(metrics[`${metric.name}${executableSuffix}`]) : null,
    ]),
  });
  const apis = [...new Set(samples.map((sample) => sample.api))].sort();
  if (apis.length > 1) {
    const byApi = apis.map((api) => computeWebapiMetrics(samples.filter((sample) => sample.api === api).map((sample) => sample.statistics)));
    tables.push({
      title: 'Evaluation results by API (as paper Tables VIII-XI)',
      columns: ['Metric', 'Overall', ...apis],
      rows: tableVMetrics.flatMap((metric) => {
        const variants: Row[] = metric.kind === 'ratio' ? [{ name: metric.name, variant: 't' }, { name: metric.name, variant: 'e' }] : [{ name: metric.name, variant: 't' }];
        return variants.map((row) => [
          metric.kind === 'count' ? metric.label : rowLabel(row),
          formatted(metrics, row, metric.kind),
          ...byApi.map((apiMetrics) => formatted(apiMetrics, row, metric.kind)),
        ]);
      }),
    });
  }
  return { metrics, tables };
}

function value(metrics: Record<string, number>, row: Row): number {
  return metrics[row.variant === 'e' ? `${row.name}${executableSuffix}` : row.name] ?? 0;
}

function formatted(metrics: Record<string, number>, row: Row, kind: 'ratio' | 'executable-share' | 'count'): number {
  return kind === 'count' ? value(metrics, row) : round(value(metrics, row));
}

function rowLabel(row: Row): string {
  const label = tableVMetrics.find((metric) => metric.name === row.name)?.label ?? row.name;
  return `${label} (${row.variant})`;
}

function round(number: number | undefined): number {
  return Math.round((number ?? 0) * 10000) / 10000;
}

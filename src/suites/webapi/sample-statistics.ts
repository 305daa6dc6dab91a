/**
 * One sample's statistics, as WAPIIBench's `_evaluate_sample` computes them: verdicts for the sample,
 * URL, method and endpoint, and argument counts per location (`headers`, `params`, `path_params`,
 * `data`, plus `all`). Accept and Content-Type are never counted. A non-executable sample counts all
 * its expected arguments as missing.
 */
import type { JsonObject } from '../../core/json.ts';
import type { EndpointVerdict, RequestComparison } from './compare-request.ts';
import type { ConfigField, RequestConfig } from './request-config.ts';
import { configFields, specialHeaders } from './request-config.ts';

export type SampleVerdict = 'correct' | 'wrong' | 'illegal' | 'nonexecutable';
/** Why a program produced no comparable request (the reference's error verdicts). */
export type ErrorVerdict = 'no_request' | 'incomplete_request' | 'runtime_error';

export type LocationKey = ConfigField | 'all';
export type LocationCounts = Partial<Record<LocationKey, number>>;

export const countNames = ['all', 'expected', 'unexpected', 'correctName', 'correctValue', 'missing', 'unnecessary', 'illegal'] as const;
export type CountName = (typeof countNames)[number];

export type SampleStatistics = {
  sampleVerdict: SampleVerdict;
  errorVerdict: ErrorVerdict | null;
  urlVerdict: EndpointVerdict | null;
  methodVerdict: EndpointVerdict | null;
  endpointVerdict: EndpointVerdict | null;
  counts: Record<CountName, LocationCounts>;
};

function emptyCounts(): Record<CountName, LocationCounts> {
  return { all: {}, expected: {}, unexpected: {}, correctName: {}, correctValue: {}, missing: {}, unnecessary: {}, illegal: {} };
}

function increment(counts: LocationCounts, field: ConfigField): void {
  counts[field] = (counts[field] ?? 0) + 1;
}

function addAllKey(counts: LocationCounts): void {
  const keys = Object.keys(counts) as LocationKey[];
  if (keys.length === 0) return;
  counts.all = keys.reduce((sum, key) => sum + (counts[key] ?? 0), 0);
}

export function executableSampleStatistics(comparison: RequestComparison): SampleStatistics {
  const counts = emptyCounts();
  for (const judgement of comparison.arguments) {
    if (!judgement.counted) continue;
    increment(counts.all, judgement.field);
    switch (judgement.verdict) {
      case 'correct':
        increment(counts.expected, judgement.field);
        increment(counts.correctName, judgement.field);
        increment(counts.correctValue, judgement.field);
        break;
      case 'incorrect-value':
        increment(counts.expected, judgement.field);
        increment(counts.correctName, judgement.field);
        break;
      case 'missing':
        increment(counts.expected, judgement.field);
        increment(counts.missing, judgement.field);
        break;
      case 'unnecessary':
        increment(counts.unexpected, judgement.field);
        increment(counts.unnecessary, judgement.field);
        break;
      case 'illegal':
        increment(counts.unexpected, judgement.field);
        increment(counts.illegal, judgement.field);
        break;
    }
  }
  for (const name of countNames) addAllKey(counts[name]);
  let sampleVerdict: SampleVerdict;
  if (comparison.endpoint === 'correct' && (counts.correctValue.all ?? 0) === (counts.all.all ?? 0)) sampleVerdict = 'correct';
  else if (comparison.endpoint === 'illegal' || (counts.illegal.all ?? 0) > 0) sampleVerdict = 'illegal';
  else sampleVerdict = 'wrong';
  return {
    sampleVerdict,
    errorVerdict: null,
    urlVerdict: comparison.url.verdict,
    methodVerdict: comparison.method.verdict,
    endpointVerdict: comparison.endpoint,
    counts,
  };
}

/**
 * A sample whose program sent no comparable request. Its expected arguments per location (path
 * parameters included, special headers excluded; a location with only special headers counts 0)
 * are all missing.
 */
export function nonexecutableSampleStatistics(errorVerdict: ErrorVerdict, expectedFields: Partial<Record<ConfigField, JsonObject>>): SampleStatistics {
  const expected: LocationCounts = {};
  for (const field of configFields) {
    const values = expectedFields[field];
    if (!values) continue;
    expected[field] = Object.keys(values).filter((name) => !(field === 'headers' && specialHeaders.includes(name))).length;
  }
  addAllKey(expected);
  const counts = emptyCounts();
  counts.all = { ...expected };
  counts.expected = { ...expected };
  counts.missing = { ...expected };
  return { sampleVerdict: 'nonexecutable', errorVerdict, urlVerdict: null, methodVerdict: null, endpointVerdict: null, counts };
}

/** The countable arguments of a config (for stats): every argument except Accept/Content-Type. */
export function countableArgumentCount(config: RequestConfig, pathParameterCount: number): number {
  const headers = Object.keys(config.headers ?? {}).filter((name) => !specialHeaders.includes(name)).length;
  return headers + Object.keys(config.params ?? {}).length + Object.keys(config.data ?? {}).length + pathParameterCount;
}

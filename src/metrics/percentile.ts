/**
 * The q-th quantile (q in [0, 1]) of a sample by linear interpolation between the closest ranks
 * (Hyndman & Fan type 7, the default of R, NumPy and spreadsheets): position (n - 1)·q in the sorted
 * values. Undefined for an empty sample.
 */
export function percentile(values: readonly number[], q: number): number | undefined {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`percentile: q must be in [0, 1], got ${q}`);
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((left, right) => left - right);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

export type LatencyPercentiles = { p50: number; p90: number; p99: number };

/** p50, p90 and p99 of a sample (e.g. episode durations); undefined when it is empty. */
export function latencyPercentiles(values: readonly number[]): LatencyPercentiles | undefined {
  if (values.length === 0) return undefined;
  return { p50: percentile(values, 0.5) as number, p90: percentile(values, 0.9) as number, p99: percentile(values, 0.99) as number };
}

/**
 * The q-th quantile (q in [0, 1]) of a sample by linear interpolation between the closest ranks
 * (Hyndman & Fan type 7, the default of R, NumPy and spreadsheets): position (n - 1)·q in the sorted
 * values. Undefined for an empty sample.
 */
export function percentile(values: readonly number[], q: number): number | undefined {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`percentile: q must be in [0, 1], got ${q}`);
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((left, right) => left - right);
  return percentileOfSorted({ count: sorted.length, at: (rank) => sorted[rank] }, q);
}

/** A sample in ascending order, read one rank at a time (a stored run's durations are read from the store by rank). */
export type SortedValues = { count: number; at(rank: number): number };

/** The same quantile of a sorted sample, reading only the (at most two) ranks it needs. */
export function percentileOfSorted(sorted: SortedValues, q: number): number | undefined {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`percentile: q must be in [0, 1], got ${q}`);
  if (sorted.count === 0) return undefined;
  const position = (sorted.count - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const lowerValue = sorted.at(lower);
  const upperValue = upper === lower ? lowerValue : sorted.at(upper);
  return lowerValue + (upperValue - lowerValue) * (position - lower);
}

export type LatencyPercentiles = { p50: number; p90: number; p99: number };

/** p50, p90 and p99 of a sample (e.g. episode durations); undefined when it is empty. */
export function latencyPercentiles(values: readonly number[]): LatencyPercentiles | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((left, right) => left - right);
  return sortedLatencyPercentiles({ count: sorted.length, at: (rank) => sorted[rank] });
}

/** The same percentiles of a sorted sample read by rank. */
export function sortedLatencyPercentiles(sorted: SortedValues): LatencyPercentiles | undefined {
  if (sorted.count === 0) return undefined;
  return { p50: percentileOfSorted(sorted, 0.5) as number, p90: percentileOfSorted(sorted, 0.9) as number, p99: percentileOfSorted(sorted, 0.99) as number };
}

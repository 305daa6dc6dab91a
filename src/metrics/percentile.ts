/**
 * The q-th quantile (q in [0, 1]) of a sample by linear interpolation between the closest ranks
 * (Hyndman & Fan type 7, the default of R, NumPy and spreadsheets): position (n - 1)·q in the sorted
 * values. Undefined for an empty sample.
 */
export function percentile(values: readonly number[], q: number): number | undefined {
  return percentilesOfSorted(sortedValuesOf(values), [q])?.[0];
}

/**
 * A sample in ascending order that gives its values at chosen ranks (0 .. count - 1) in one read: an array, or a
 * stored run's durations read by SQL without holding them all.
 */
export type SortedValues = { count: number; valuesAt(ranks: readonly number[]): number[] };

export function sortedValuesOf(values: readonly number[]): SortedValues {
  const sorted = [...values].sort((left, right) => left - right);
  return { count: sorted.length, valuesAt: (ranks) => ranks.map((rank) => sorted[rank]) };
}

/** The same quantiles of a sorted sample, reading only the ranks they need (at most two each); undefined when empty. */
export function percentilesOfSorted(sorted: SortedValues, qs: readonly number[]): number[] | undefined {
  for (const q of qs) if (!(q >= 0 && q <= 1)) throw new RangeError(`percentile: q must be in [0, 1], got ${q}`);
  if (sorted.count === 0) return undefined;
  const positions = qs.map((q) => (sorted.count - 1) * q);
  const ranks = [...new Set(positions.flatMap((position) => [Math.floor(position), Math.ceil(position)]))];
  const values = sorted.valuesAt(ranks);
  const valueAt = new Map(ranks.map((rank, index) => [rank, values[index]]));
  return positions.map((position) => {
    const lower = Math.floor(position);
    const lowerValue = valueAt.get(lower) as number;
    return lowerValue + ((valueAt.get(Math.ceil(position)) as number) - lowerValue) * (position - lower);
  });
}

export type LatencyPercentiles = { p50: number; p90: number; p99: number };

/** p50, p90 and p99 of a sample (e.g. episode durations); undefined when it is empty. */
export function latencyPercentiles(values: readonly number[]): LatencyPercentiles | undefined {
  return sortedLatencyPercentiles(sortedValuesOf(values));
}

/** The same percentiles of a sorted sample read by rank. */
export function sortedLatencyPercentiles(sorted: SortedValues): LatencyPercentiles | undefined {
  const values = percentilesOfSorted(sorted, [0.5, 0.9, 0.99]);
  return values && { p50: values[0], p90: values[1], p99: values[2] };
}

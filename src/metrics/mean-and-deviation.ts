export type MeanAndDeviation = {
  count: number;
  mean: number;
  /** Sample standard deviation (n - 1 denominator); 0 for fewer than two values. */
  standardDeviation: number;
};

/** Mean ± sample standard deviation, as papers report "x ± s" over repeated trials or tasks. */
export function meanAndDeviation(values: readonly number[]): MeanAndDeviation {
  const count = values.length;
  if (count === 0) return { count: 0, mean: 0, standardDeviation: 0 };
  const mean = values.reduce((sum, value) => sum + value, 0) / count;
  if (count === 1) return { count, mean, standardDeviation: 0 };
  const squares = values.reduce((sum, value) => sum + (value - mean) ** 2, 0);
  return { count, mean, standardDeviation: Math.sqrt(squares / (count - 1)) };
}

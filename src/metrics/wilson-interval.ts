/** The two-sided 95% normal quantile, to the precision the interval is reported at. */
export const z95 = 1.959963984540054;

/**
 * Wilson score interval for a binomial proportion: unlike the normal approximation it stays inside
 * [0, 1] and behaves at 0/n and n/n, which matter for small task sets. With no trials nothing is
 * known, so the interval is the whole of [0, 1].
 */
export function wilsonInterval(successes: number, total: number, z = z95): [number, number] {
  if (!Number.isInteger(successes) || !Number.isInteger(total) || successes < 0 || total < 0 || successes > total) {
    throw new RangeError(`wilsonInterval: need integers 0 <= successes <= total, got ${successes}/${total}`);
  }
  if (total === 0) return [0, 1];
  const proportion = successes / total;
  const zSquared = z * z;
  const denominator = 1 + zSquared / total;
  const center = (proportion + zSquared / (2 * total)) / denominator;
  const margin = (z * Math.sqrt((proportion * (1 - proportion)) / total + zSquared / (4 * total * total))) / denominator;
  // The interval touches 0 at 0/n and 1 at n/n exactly; rounding must not move it off.
  const low = successes === 0 ? 0 : Math.max(0, center - margin);
  const high = successes === total ? 1 : Math.min(1, center + margin);
  return [low, high];
}

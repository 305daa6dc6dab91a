import { normalQuantile } from './normal-quantile.ts';

export type PairedSampleSizeInput = {
  /** Pairs where the baseline passed and the treatment failed. */
  baselineOnly: number;
  /** Pairs where the treatment passed and the baseline failed. */
  treatmentOnly: number;
  /** All pairs (concordant ones included). */
  pairs: number;
  /** Two-sided significance level (default 0.05). */
  alpha?: number;
  /** Wanted power (default 0.8). */
  power?: number;
};

/**
 * How many pairs (tasks, each run once by both conditions) a paired comparison of pass/fail outcomes
 * needs to detect the observed difference with a two-sided McNemar test at level alpha with the given
 * power — Connor's (1987) formula for paired binary outcomes:
 *
 *     n = ( z_{1-α/2} · √ψ + z_{1-β} · √(ψ - δ²) )² / δ²
 *
 * with ψ = p10 + p01 the share of discordant pairs and δ = p01 - p10 the difference in pass rates,
 * both estimated from the observed pairs (p10 = baselineOnly / pairs, p01 = treatmentOnly / pairs).
 * Rounded up. Null when the runs show no difference (δ = 0): there is nothing to detect.
 */
export function pairedSampleSize(input: PairedSampleSizeInput): number | null {
  const { baselineOnly, treatmentOnly, pairs } = input;
  const alpha = input.alpha ?? 0.05;
  const power = input.power ?? 0.8;
  if (![baselineOnly, treatmentOnly, pairs].every((value) => Number.isInteger(value) && value >= 0) || baselineOnly + treatmentOnly > pairs) {
    throw new RangeError(`pairedSampleSize: need counts with baselineOnly + treatmentOnly <= pairs, got ${baselineOnly} + ${treatmentOnly} of ${pairs}`);
  }
  if (!(alpha > 0 && alpha < 1) || !(power > 0 && power < 1)) throw new RangeError(`pairedSampleSize: alpha and power must be in (0, 1), got ${alpha} and ${power}`);
  if (pairs === 0 || baselineOnly === treatmentOnly) return null;
  const discordant = (baselineOnly + treatmentOnly) / pairs;
  const difference = (treatmentOnly - baselineOnly) / pairs;
  const root = normalQuantile(1 - alpha / 2) * Math.sqrt(discordant) + normalQuantile(power) * Math.sqrt(discordant - difference * difference);
  // A hair of tolerance: an exact integer must not round up to the next one through floating error.
  return Math.ceil((root * root) / (difference * difference) - 1e-9);
}

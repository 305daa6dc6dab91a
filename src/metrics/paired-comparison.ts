import { Rng } from '../core/rng.ts';

export type PairedComparison = {
  /** Tasks present in both conditions. */
  pairs: number;
  /** Tasks present in only one condition (left out of every figure below). */
  unpaired: number;
  baselineMean: number;
  treatmentMean: number;
  /** Mean over tasks of treatment - baseline. */
  meanDifference: number;
  /** Percentile bootstrap 95% interval of the mean difference (resampling tasks, seeded). */
  differenceCI95: [number, number];
  /** Exact two-sided sign test over tasks whose values differ. */
  signTest: { improved: number; worsened: number; ties: number; pValue: number };
};

export type PairedComparisonOptions = { seed?: number; resamples?: number };

/**
 * Compares two conditions on the same tasks (e.g. original vs drifted tools, model A vs model B),
 * pairing per task id: per-task values (a pass rate over trials, or 0/1) are differenced so that
 * task difficulty cancels out. Deterministic: pairs are taken in id order and the bootstrap draws
 * from a seeded Rng.
 */
export function pairedComparison(
  baseline: Readonly<Record<string, number>>,
  treatment: Readonly<Record<string, number>>,
  options: PairedComparisonOptions = {},
): PairedComparison {
  const ids = Object.keys(baseline).filter((id) => Object.hasOwn(treatment, id)).sort();
  const unpaired = Object.keys(baseline).length + Object.keys(treatment).length - 2 * ids.length;
  const differences = ids.map((id) => treatment[id] - baseline[id]);
  const count = ids.length;
  const mean = (values: number[]): number => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);
  const improved = differences.filter((difference) => difference > 0).length;
  const worsened = differences.filter((difference) => difference < 0).length;
  return {
    pairs: count,
    unpaired,
    baselineMean: mean(ids.map((id) => baseline[id])),
    treatmentMean: mean(ids.map((id) => treatment[id])),
    meanDifference: mean(differences),
    differenceCI95: bootstrapInterval(differences, options.seed ?? 0, options.resamples ?? 2000),
    signTest: { improved, worsened, ties: count - improved - worsened, pValue: signTestPValue(improved, worsened) },
  };
}

function bootstrapInterval(differences: readonly number[], seed: number, resamples: number): [number, number] {
  const count = differences.length;
  if (count === 0) return [0, 0];
  const rng = new Rng(seed);
  const means: number[] = [];
  for (let resample = 0; resample < resamples; resample += 1) {
    let sum = 0;
    for (let draw = 0; draw < count; draw += 1) sum += differences[rng.int(0, count - 1)];
    means.push(sum / count);
  }
  means.sort((left, right) => left - right);
  const lowIndex = Math.floor(0.025 * resamples);
  const highIndex = Math.max(lowIndex, Math.ceil(0.975 * resamples) - 1);
  return [means[lowIndex], means[highIndex]];
}

/** Two-sided exact binomial (p = 1/2) test on the non-tied pairs; 1 when there are none. */
export function signTestPValue(improved: number, worsened: number): number {
  const trials = improved + worsened;
  if (trials === 0) return 1;
  const smaller = Math.min(improved, worsened);
  // Sum the binomial tail in log space: 2^-n underflows for a thousand pairs.
  let logBinomial = 0;
  let tail = 0;
  for (let successes = 0; successes <= smaller; successes += 1) {
    if (successes > 0) logBinomial += Math.log(trials - successes + 1) - Math.log(successes);
    tail += Math.exp(logBinomial - trials * Math.LN2);
  }
  return Math.min(1, 2 * tail);
}

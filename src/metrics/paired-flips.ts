import { mcnemarExactPValue } from './mcnemar-test.ts';

/**
 * Per-task flips between a baseline and a treatment (a drift operator, a perturbation) on the
 * same tasks, paired by task id (a transformed task's origin id): which tasks went pass -> fail and
 * fail -> pass, both pass rates over the paired tasks, the drop, and the exact McNemar p-value.
 */
export type PairedFlips = {
  pairs: number;
  /** Task ids present in only one condition (left out of every figure). */
  unpaired: string[];
  bothPassed: number;
  bothFailed: number;
  /** Task ids, sorted. */
  passToFail: string[];
  failToPass: string[];
  baselinePassRate: number;
  treatmentPassRate: number;
  /** baselinePassRate - treatmentPassRate (positive = the treatment hurts). */
  drop: number;
  mcnemarPValue: number;
};

export function pairedFlips(baseline: Readonly<Record<string, boolean>>, treatment: Readonly<Record<string, boolean>>): PairedFlips {
  const ids = Object.keys(baseline).filter((id) => Object.hasOwn(treatment, id)).sort();
  const unpaired = [...Object.keys(baseline), ...Object.keys(treatment)].filter((id) => !(Object.hasOwn(baseline, id) && Object.hasOwn(treatment, id))).sort();
  const passToFail = ids.filter((id) => baseline[id] && !treatment[id]);
  const failToPass = ids.filter((id) => !baseline[id] && treatment[id]);
  const bothPassed = ids.filter((id) => baseline[id] && treatment[id]).length;
  const rate = (passed: number): number => (ids.length === 0 ? 0 : passed / ids.length);
  const baselinePassRate = rate(bothPassed + passToFail.length);
  const treatmentPassRate = rate(bothPassed + failToPass.length);
  return {
    pairs: ids.length,
    unpaired,
    bothPassed,
    bothFailed: ids.length - bothPassed - passToFail.length - failToPass.length,
    passToFail,
    failToPass,
    baselinePassRate,
    treatmentPassRate,
    drop: baselinePassRate - treatmentPassRate,
    mcnemarPValue: mcnemarExactPValue(passToFail.length, failToPass.length),
  };
}

/** One row per treatment (e.g. per drift operator or perturbation id), in id order, each against the same baseline. */
export function pairedFlipsByTreatment(
  baseline: Readonly<Record<string, boolean>>,
  treatments: Readonly<Record<string, Readonly<Record<string, boolean>>>>,
): ({ treatment: string } & PairedFlips)[] {
  return Object.keys(treatments).sort().map((treatment) => ({ treatment, ...pairedFlips(baseline, treatments[treatment]) }));
}

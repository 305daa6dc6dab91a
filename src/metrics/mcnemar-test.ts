import { signTestPValue } from './paired-comparison.ts';

/**
 * Exact McNemar test on paired pass/fail outcomes: under the null hypothesis each discordant pair
 * (pass -> fail or fail -> pass) goes either way with probability 1/2, so the two-sided p-value is
 * the binomial tail 2 * sum_{k <= min(b, c)} C(b + c, k) / 2^(b + c), capped at 1 (1 with no
 * discordant pairs). Concordant pairs carry no information and do not enter.
 */
export function mcnemarExactPValue(passToFail: number, failToPass: number): number {
  for (const [name, value] of [['passToFail', passToFail], ['failToPass', failToPass]] as const) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`mcnemarExactPValue: ${name} must be a count, got ${value}`);
  }
  const discordant = passToFail + failToPass;
  if (discordant === 0) return 1;
  // Up to 1000 pairs, 2^n is a finite double and integer coefficients stay exact while small, so
  // hand-computed values come out exactly; beyond, the log-space sum of the sign test avoids overflow.
  if (discordant > 1000) return signTestPValue(failToPass, passToFail);
  const smaller = Math.min(passToFail, failToPass);
  let coefficient = 1;
  let sum = 1;
  for (let successes = 1; successes <= smaller; successes += 1) {
    coefficient = (coefficient * (discordant - successes + 1)) / successes;
    sum += coefficient;
  }
  return Math.min(1, (2 * sum) / 2 ** discordant);
}

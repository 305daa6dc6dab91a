import type { FailureCode } from '../core/failure.ts';
import { failureCodes } from '../core/failure.ts';
import type { Score } from '../core/score.ts';

/**
 * How many failed episodes failed for each reason, by each score's main `failure` code. Every code
 * is present (zero when unseen) so that tables and JSON have a stable shape. A failed score without
 * a code is a suite bug surfaced as `result.wrong`, the least specific honest label.
 */
export function failureBreakdown(scores: readonly Score[]): Record<FailureCode, number> {
  const counts = Object.fromEntries(failureCodes.map((code) => [code, 0])) as Record<FailureCode, number>;
  for (const score of scores) {
    if (score.passed) continue;
    counts[score.failure ?? 'result.wrong'] += 1;
  }
  return counts;
}

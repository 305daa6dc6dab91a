import { z } from 'zod';

/**
 * The longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days): a longer one fires after 1 ms. Every time
 * limit, timeout and lease is held to it, or it would end at once instead of never.
 */
export const longestTimerMs = 2_147_483_647;

export const limitsSchema = z.object({
  /** Model turns (generate calls) in one episode. */
  maxTurns: z.number().int().positive(),
  /** Tool calls in one episode, across turns. */
  maxToolCalls: z.number().int().positive(),
  /** Wall-clock budget for one episode. */
  timeLimitMs: z.number().int().positive().max(longestTimerMs, `at most ${longestTimerMs} ms (24.8 days): a longer timer fires at once`),
});
export type Limits = z.infer<typeof limitsSchema>;

export const defaultLimits: Limits = { maxTurns: 30, maxToolCalls: 100, timeLimitMs: 300_000 };

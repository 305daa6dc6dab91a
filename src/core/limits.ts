import { z } from 'zod';

export const limitsSchema = z.object({
  /** Model turns (generate calls) in one episode. */
  maxTurns: z.number().int().positive(),
  /** Tool calls in one episode, across turns. */
  maxToolCalls: z.number().int().positive(),
  /** Wall-clock budget for one episode. */
  timeLimitMs: z.number().int().positive(),
});
export type Limits = z.infer<typeof limitsSchema>;

export const defaultLimits: Limits = { maxTurns: 30, maxToolCalls: 100, timeLimitMs: 300_000 };

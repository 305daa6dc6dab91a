/** What a funcgen score keeps of its episode (Score.details): the counts and knobs the summary's tables group by. */
import { z } from 'zod';
import { terminationSchema } from '../../core/termination.ts';

export const funcgenDetailsSchema = z.object({
  calls: z.number().int().nonnegative(),
  correctCalls: z.number().int().nonnegative(),
  /** Calls to connected or disconnected (irrelevant) functions. */
  irrelevantCalls: z.number().int().nonnegative(),
  minCalls: z.number().int().nonnegative(),
  maxCalls: z.number().int().nonnegative(),
  /** The last integer of the final answer; null without an answer or an integer. */
  answer: z.number().nullable(),
  targetValue: z.number(),
  core: z.number().int(),
  depth: z.number().int(),
  connected: z.number().int(),
  disconnected: z.number().int(),
  restate: z.boolean(),
  termination: terminationSchema,
});

export type FuncgenDetails = z.infer<typeof funcgenDetailsSchema>;

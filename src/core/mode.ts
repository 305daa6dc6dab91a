import { z } from 'zod';

/**
 * How the model interacts with a task:
 * - calls: native function calling, multi-turn;
 * - react: a text Thought/Action/Action Input/Observation protocol for models without native tools;
 * - sequence: one shot, the whole call list with labels and references, executed afterwards;
 * - code: the model writes a program that runs in the sandbox.
 */
export const modeSchema = z.enum(['calls', 'react', 'sequence', 'code']);
export type Mode = z.infer<typeof modeSchema>;
export const modes: readonly Mode[] = modeSchema.options;

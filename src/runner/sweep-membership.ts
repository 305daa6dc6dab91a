import { z } from 'zod';
import type { JsonObject } from '../core/json.ts';

/**
 * Which sweep a run belongs to, recorded in the run's params under `sweep` (beside the knob values,
 * so it survives export and import with the run): the group id shared by every run of one
 * `toolforge sweep`, the whole grid, and this run's point on it.
 */
export type SweepMembership = {
  group: string;
  grid: Record<string, (number | string | boolean)[]>;
  point: Record<string, number | string | boolean>;
};

const levelSchema = z.union([z.number(), z.string(), z.boolean()]);
const membershipSchema = z.object({
  group: z.string().min(1),
  grid: z.record(z.string(), z.array(levelSchema)),
  point: z.record(z.string(), levelSchema),
});

/** The params key that holds a run's sweep membership. */
export const sweepParamsKey = 'sweep';

/** A run's sweep membership from its params, or undefined for a run that is not part of a sweep. */
export function sweepMembershipOf(params: JsonObject): SweepMembership | undefined {
  const parsed = membershipSchema.safeParse(params[sweepParamsKey]);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The funcgen knobs (paper section 3.2 / 4.1) and their validation. Defaults are the paper's main
 * small setting: 5 core functions, and 10 irrelevant ones "half & half" (5 connected, 5 disconnected).
 */
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Knob } from '../knob.ts';

export const funcgenKnobs: readonly Knob[] = [
  { type: 'integer', name: 'core', description: 'core functions: the ones the target needs, so the minimum number of calls (n_core)', default: 5, min: 2, max: 200 },
  { type: 'integer', name: 'depth', description: 'dependency depth: edges on the longest core path to the target, in [1, core-1] (d)', default: 3, min: 1, max: 199 },
  { type: 'integer', name: 'connected', description: 'connected irrelevant functions (CINs): consume core outputs, never needed', default: 5, min: 0, max: 500 },
  { type: 'integer', name: 'disconnected', description: 'disconnected irrelevant functions (DINs): no edge to or from the core', default: 5, min: 0, max: 500 },
  { type: 'boolean', name: 'restate', description: 'the paper\'s mitigation: every tool result also lists all variable values seen so far', default: false },
];

export type FuncgenParams = { core: number; depth: number; connected: number; disconnected: number; restate: boolean };

const paramsSchema = z.object({
  core: z.number().int(),
  depth: z.number().int(),
  connected: z.number().int(),
  disconnected: z.number().int(),
  restate: z.boolean(),
});

/** Parses resolved knob values (or a task's params) and checks the combinations the graph needs. */
export function parseFuncgenParams(params: JsonObject): FuncgenParams {
  const parsed = paramsSchema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const knob = String(issue?.path[0] ?? 'params');
    throw new ConfigError('config.invalid-knob', `funcgen knob '${knob}' is invalid: ${issue?.message ?? 'bad value'}`, {
      fix: `set it with --set ${knob}=<value> (see 'toolforge suites' for funcgen's knobs)`,
    });
  }
  const value = parsed.data;
  for (const knob of funcgenKnobs) {
    if (knob.type !== 'integer') continue;
    const number = value[knob.name as 'core'];
    if ((knob.min !== undefined && number < knob.min) || (knob.max !== undefined && number > knob.max)) {
      throw new ConfigError('config.invalid-knob', `funcgen knob '${knob.name}' is ${number}, outside [${knob.min}, ${knob.max}]`, {
        fix: `--set ${knob.name}=<integer in [${knob.min}, ${knob.max}]>`,
      });
    }
  }
  if (value.depth > value.core - 1) {
    throw new ConfigError('config.invalid-knob', `funcgen knob 'depth' is ${value.depth}, but with core=${value.core} it must be in [1, ${value.core - 1}] (a depth-d chain needs d+1 core functions)`, {
      fix: `--set depth=<1..${value.core - 1}>, or raise --set core to at least ${value.depth + 1}`,
    });
  }
  return value;
}

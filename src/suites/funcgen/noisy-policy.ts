/**
 * builtin/noisy: the planner (planner-policy.ts) with slips. Every linked value — an argument the
 * planner fills from an earlier call's output, i.e. one edge of the dependency graph it reconstructed —
 * is passed wrong with probability p: the planner uses another value it has seen (a prompt input or
 * another output, as a model that confuses two variables would), or the right value plus one when it
 * has seen no other. Prompt inputs are copied faithfully. A wrong value flows on, so the answer is
 * wrong unless no slip happens: accuracy is about (1 - p)^(core edges), falling with core and depth,
 * the difficulty curve a sweep should show. Whether each linked value slips, and which wrong value
 * it takes, is drawn once per (call, parameter) from the task seed and the trial: deterministic, and
 * independent of the order calls are made in.
 */
import { ConfigError } from '../../core/errors.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import type { Policy } from '../../models/builtin/scripted-model.ts';
import { createPlannerPolicy } from './planner-policy.ts';

export const defaultSlipProbability = 0.1;

/** The `p` of `builtin/noisy?p=<p>`: a number in [0, 1]; no other parameter is accepted. */
export function parseNoisyParameters(parameters: Readonly<Record<string, string>>): { slipProbability: number } {
  for (const name of Object.keys(parameters)) {
    if (name !== 'p') {
      throw new ConfigError('config.unknown-model', `builtin/noisy has no parameter '${name}'`, { fix: 'use builtin/noisy?p=<probability in [0, 1]>, e.g. builtin/noisy?p=0.3' });
    }
  }
  const text = parameters.p;
  if (text === undefined) return { slipProbability: defaultSlipProbability };
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new ConfigError('config.unknown-model', `builtin/noisy: p must be a probability in [0, 1], got '${text}'`, { fix: 'use builtin/noisy?p=<number in [0, 1]>, e.g. builtin/noisy?p=0.3' });
  }
  return { slipProbability: value };
}

export function createNoisyPolicy(task: Task, trial: number, slipProbability: number): Policy {
  const rng = new Rng(deriveSeed(task.seed, 'builtin-noisy', trial));
  return createPlannerPolicy(task, ({ call, parameter, value, seen }) => {
    const draw = rng.child(call, parameter);
    const slips = draw.bool(slipProbability);
    const pick = draw.int(0, 2 ** 30);
    return slips ? wrongValue(value, seen, pick) : value;
  });
}

/** Another seen value (the pick-th of the distinct others), or value + 1 when nothing else was seen. */
function wrongValue(value: number, seen: readonly number[], pick: number): number {
  const others = [...new Set(seen)].filter((candidate) => candidate !== value).sort((left, right) => left - right);
  return others.length === 0 ? value + 1 : others[pick % others.length];
}


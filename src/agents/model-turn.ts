/**
 * One model turn inside an episode's budget, the same in every multi-turn agent: stop first if the
 * budget or the turn limit says so, and read an abort we caused (time limit, cancellation) as the
 * episode's end rather than an error. Anything else the model throws is infrastructure and propagates.
 */
import type { Termination } from '../core/termination.ts';
import type { GenerateRequest, GenerateResult } from '../models/spec.ts';
import type { EpisodeBudget } from './episode-budget.ts';
import type { AgentContext } from './spec.ts';

export type ModelTurn =
  | { type: 'generated'; result: GenerateResult }
  | { type: 'stopped'; termination: Termination };

export async function takeModelTurn(
  context: AgentContext,
  budget: EpisodeBudget,
  turnsTaken: number,
  request: Omit<GenerateRequest, 'signal'>,
): Promise<ModelTurn> {
  const stopped = budget.stopReason();
  if (stopped) return { type: 'stopped', termination: stopped };
  if (turnsTaken >= context.limits.maxTurns) return { type: 'stopped', termination: 'max-turns' };
  let result: GenerateResult;
  try {
    result = await context.model.generate({ ...request, signal: budget.signal });
  } catch (error) {
    const reason = budget.stopReason();
    if (reason) return { type: 'stopped', termination: reason };
    throw error;
  }
  context.emit({ type: 'model-call-end', turn: turnsTaken + 1, usage: result.usage });
  return { type: 'generated', result };
}

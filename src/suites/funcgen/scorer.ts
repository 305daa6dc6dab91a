/**
 * Success = the episode ended with an answer whose last integer is the target's value (section 3.1:
 * "the agent's final output is parsed to obtain the answer").
 *
 * The failure of a failed episode, in this order:
 * - `limit.exceeded` when the call cap (2x the minimum), the turn cap or the time limit ended it;
 * - `output.unparsable` when react output could not be read;
 * - the first classified call fault, if any call was faulty;
 * - `result.wrong` otherwise (clean calls, wrong or missing answer).
 * `failureCounts` counts the call faults of the episode (the paper's Table 3 counts calls).
 */
import type { FailureCode } from '../../core/failure.ts';
import { lastAssistantText } from '../../core/message.ts';
import type { Mode } from '../../core/mode.ts';
import type { Score, ScoreInput } from '../../core/score.ts';
import type { Termination } from '../../core/termination.ts';
import { z } from 'zod';
import { callFaults } from './environment.ts';
import type { FuncgenState } from './environment.ts';
import type { FuncgenDetails } from './funcgen-details.ts';
import { readFuncgenTask } from './funcgen-task.ts';

const stateSchema = z.object({
  calls: z.array(z.object({
    name: z.string(),
    argumentsText: z.string(),
    classification: z.enum(['correct', ...callFaults]),
    role: z.enum(['core', 'connected', 'disconnected']).nullable(),
    output: z.number().nullable(),
  })),
  knownValues: z.record(z.string(), z.number()),
});

const classifications: ReadonlySet<unknown> = new Set(['correct', ...callFaults]);
const roles: ReadonlySet<unknown> = new Set(['core', 'connected', 'disconnected', null]);

/**
 * The episode's final state, checked as stateSchema says. A run's own environment made it, so the check is a loop over
 * the calls (zod's parse of every call was ~5% of a built-in episode); a state that fails it (read back from a
 * damaged or other-version store by rescore) is parsed by the schema, whose error names the field.
 */
function readState(value: unknown): FuncgenState {
  if (isFuncgenState(value)) return value;
  return stateSchema.parse(value);
}

function isFuncgenState(value: unknown): value is FuncgenState {
  if (typeof value !== 'object' || value === null) return false;
  const { calls, knownValues } = value as { calls?: unknown; knownValues?: unknown };
  if (!Array.isArray(calls) || typeof knownValues !== 'object' || knownValues === null || Array.isArray(knownValues)) return false;
  for (const call of calls as unknown[]) {
    if (typeof call !== 'object' || call === null) return false;
    const { name, argumentsText, classification, role, output } = call as Record<string, unknown>;
    if (typeof name !== 'string' || typeof argumentsText !== 'string' || !classifications.has(classification) || !roles.has(role)) return false;
    if (output !== null && !Number.isFinite(output)) return false;
  }
  for (const known of Object.values(knownValues)) if (!Number.isFinite(known)) return false;
  return true;
}

const limitTerminations: readonly Termination[] = ['max-tool-calls', 'max-turns', 'time-limit', 'context-length'];

/** The last integer of a text, or null when it has none. */
export function lastInteger(text: string): number | null {
  const matches = text.match(/-?\d+/g);
  return matches ? Number(matches[matches.length - 1]) : null;
}

export function scoreFuncgen(input: ScoreInput & { mode: Mode }): Score<FuncgenDetails> {
  const { expected, params } = readFuncgenTask(input.task);
  const state = readState(input.finalState);
  const answered = input.termination === 'final-answer';
  const answer = answered ? lastInteger(lastAssistantText(input.messages)) : null;
  const passed = answered && answer === expected.target.value;

  const failureCounts: Partial<Record<FailureCode, number>> = {};
  const faults = state.calls.flatMap((call) => (call.classification === 'correct' ? [] : [call.classification]));
  const firstFault: FailureCode | undefined = faults[0];
  for (const fault of faults) failureCounts[fault] = (failureCounts[fault] ?? 0) + 1;
  const failure: FailureCode | undefined = passed ? undefined
    : limitTerminations.includes(input.termination) ? 'limit.exceeded'
      : input.termination === 'output-unparsable' ? 'output.unparsable'
        : firstFault ?? 'result.wrong';

  const target = `${expected.target.variable} = ${expected.target.value}`;
  const reason = passed ? `answered ${answer}, the value of ${expected.target.variable}`
    : !answered ? `ended with ${input.termination} after ${state.calls.length} calls (target ${target})`
      : answer === null ? `the final answer has no integer (target ${target})`
        : `answered ${answer}, but ${target}`;
  const score: Score<FuncgenDetails> = {
    value: passed ? 1 : 0,
    passed,
    reason,
    failureCounts,
    details: {
      calls: state.calls.length,
      correctCalls: state.calls.filter((call) => call.classification === 'correct').length,
      irrelevantCalls: state.calls.filter((call) => call.role === 'connected' || call.role === 'disconnected').length,
      minCalls: expected.solution.length,
      maxCalls: input.task.limits.maxToolCalls,
      answer,
      targetValue: expected.target.value,
      core: params.core,
      depth: params.depth,
      connected: params.connected,
      disconnected: params.disconnected,
      restate: params.restate,
      termination: input.termination,
    },
  };
  if (failure !== undefined) score.failure = failure;
  return score;
}

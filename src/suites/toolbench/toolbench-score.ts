/**
 * Scoring one toolbench episode. Structural facts first, read from what the environment recorded:
 * how it finished (Finish with an answer, a give-up, no Finish), the API calls and whether each is
 * valid under the schema the environment enforces (a drift transform may enforce another than the
 * model was told), and whether the model recovered after a schema error. With a judge
 * (`--set judge=<model ref>`), StableToolBench's evaluator rates the answer `judge-times` times;
 * the episode's value is the mean verdict (Solved 1, Unsure 0.5, Unsolved 0) and it passes at ≥ 0.5.
 * Without one the pass is structural and marked unjudged: passed = Finish with a non-empty answer,
 * at least one valid API call, and no schema error left unrecovered.
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { z } from 'zod';
import type { CallRecord } from '../../core/call-record.ts';
import type { JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { Message } from '../../core/message.ts';
import type { Mode } from '../../core/mode.ts';
import type { Score, ScoreInput } from '../../core/score.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { AnswerStatus, FinalStep, Judge } from './solvable-pass-rate.ts';
import { answerStatuses } from './solvable-pass-rate.ts';
import { judgeAnswer } from './solvable-pass-rate.ts';
import { finishTool, finishToolName } from './tool-exposure.ts';

/** What the summary reads back from every score (the suite's detailsSchema). */
export const toolbenchDetailsSchema = z.object({
  group: z.string(),
  finish: z.enum(['no-finish', 'give-up', 'answer']) satisfies z.ZodType<FinalStep['kind']>,
  /** Finish with a non-empty final answer. */
  answered: z.boolean(),
  apiCalls: z.number().int().nonnegative(),
  validCalls: z.number().int().nonnegative(),
  /** Whether a schema error was followed by a valid call; null when there was no schema error. */
  recovered: z.boolean().nullable(),
  judged: z.boolean(),
  /** One verdict per judge run (empty when unjudged). */
  verdicts: z.array(z.enum(answerStatuses)),
});

export type ToolbenchDetails = z.infer<typeof toolbenchDetailsSchema>;

export const verdictValue: Readonly<Record<AnswerStatus, number>> = { Solved: 1, Unsure: 0.5, Unsolved: 0 };

/** The final step: the Finish function the environment recorded, or in react mode the protocol's Finish. */
export function finalStepOf(finalState: JsonValue, messages: readonly Message[], mode: Mode, termination: string): FinalStep {
  const recorded = isJsonObject(finalState) && isJsonObject(finalState.finalStep) ? finalState.finalStep as FinalStep : { kind: 'no-finish' as const };
  if (recorded.kind !== 'no-finish' || mode !== 'react' || termination !== 'final-answer') return recorded;
  const last = [...messages].reverse().find((message) => message.role === 'assistant');
  const text = last?.content ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'answer', finalAnswer: text };
  }
  if (!isJsonObject(parsed) || typeof parsed.return_type !== 'string') return { kind: 'answer', finalAnswer: text };
  if (parsed.return_type === 'give_up_and_restart') return { kind: 'give-up' };
  return { kind: 'answer', finalAnswer: typeof parsed.final_answer === 'string' ? parsed.final_answer : '' };
}

type ApiCallCheck = { valid: boolean };

/** Each API call (Finish aside), valid when it parsed, names an enforced tool, fits its schema and was not refused. */
export function checkApiCalls(calls: readonly CallRecord[], enforcedTools: readonly ToolSpec[]): ApiCallCheck[] {
  const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false, logger: false });
  const validators = new Map<string, ValidateFunction>();
  const validatorOf = (tool: ToolSpec): ValidateFunction | undefined => {
    if (!validators.has(tool.name)) {
      try {
        validators.set(tool.name, ajv.compile(tool.inputSchema));
      } catch {
        return undefined;
      }
    }
    return validators.get(tool.name);
  };
  // Finish by its name, or by its description when a transform renamed it.
  const isFinish = (name: string): boolean => name === finishToolName || enforcedTools.some((tool) => tool.name === name && tool.description === finishTool.description);
  const checks: ApiCallCheck[] = [];
  for (const call of calls) {
    if (call.type !== 'tool' || isFinish(call.name)) continue;
    const tool = enforcedTools.find((candidate) => candidate.name === call.name);
    const refused = !call.result.ok && (call.result.error.code === 'tool.unknown' || call.result.error.code === 'arguments.invalid');
    const fits = tool !== undefined && call.arguments !== null && call.parseError === undefined && (validatorOf(tool)?.(call.arguments) ?? true);
    checks.push({ valid: fits && !refused });
  }
  return checks;
}

export function recoveredAfterSchemaError(checks: readonly ApiCallCheck[]): boolean | null {
  const lastError = checks.map((check) => check.valid).lastIndexOf(false);
  if (lastError === -1) return null;
  return checks.slice(lastError + 1).some((check) => check.valid);
}

/** The answer's execution as the `parse_answer_status` prompt reads it: each step with its response, then the answer. */
export function answerDetails(calls: readonly CallRecord[], finalStep: FinalStep): string {
  const steps = calls.filter((call) => call.type === 'tool').map((call) => ({
    name: call.name, arguments: call.argumentsText, response: call.result.ok ? call.result.output : call.result.error.message,
  }));
  return JSON.stringify({ steps, final_answer: finalStep.kind === 'answer' ? finalStep.finalAnswer : '' });
}

export type JudgeSet = { judges: Judge[] };

export async function scoreToolbenchEpisode(input: ScoreInput & { mode: Mode }, group: string, judgeSet: JudgeSet | undefined): Promise<Score<ToolbenchDetails>> {
  const finalStep = finalStepOf(input.finalState, input.messages, input.mode, input.termination);
  const environment = await input.createEnvironment();
  let enforcedTools: ToolSpec[];
  try {
    enforcedTools = environment.listTools();
  } finally {
    await environment.dispose();
  }
  const checks = checkApiCalls(input.calls, enforcedTools);
  const validCalls = checks.filter((check) => check.valid).length;
  const recovered = recoveredAfterSchemaError(checks);
  const answered = finalStep.kind === 'answer' && finalStep.finalAnswer.trim() !== '';
  const verdicts: AnswerStatus[] = [];
  if (judgeSet) {
    const details = answerDetails(input.calls, finalStep);
    for (const judge of judgeSet.judges) verdicts.push(await judgeAnswer(input.task.query ?? '', finalStep, details, judge));
  }
  const details: ToolbenchDetails = { group, finish: finalStep.kind, answered, apiCalls: checks.length, validCalls, recovered, judged: judgeSet !== undefined, verdicts };
  const value = judgeSet
    ? verdicts.reduce((sum, verdict) => sum + verdictValue[verdict], 0) / Math.max(verdicts.length, 1)
    : (answered && validCalls >= 1 && recovered !== false ? 1 : 0);
  const passed = judgeSet ? value >= 0.5 : value === 1;
  const reason = describe(finalStep, answered, checks.length, validCalls, recovered, verdicts, judgeSet !== undefined);
  const score: Score<ToolbenchDetails> = { value, passed, reason, details };
  if (!passed) score.failure = failureOf(input.termination, finalStep, checks.length, validCalls, input.calls);
  return score;
}

function describe(finalStep: FinalStep, answered: boolean, apiCalls: number, validCalls: number, recovered: boolean | null, verdicts: AnswerStatus[], judged: boolean): string {
  const finish = finalStep.kind === 'no-finish' ? 'no Finish call' : finalStep.kind === 'give-up' ? 'gave up' : answered ? 'Finish with an answer' : 'Finish with an empty answer';
  const calls = `${validCalls}/${apiCalls} API calls valid${recovered === null ? '' : recovered ? ', recovered after a schema error' : ', a schema error left unrecovered'}`;
  return judged ? `${finish}; ${calls}; judge: ${verdicts.join(', ')}` : `${finish}; ${calls} (unjudged)`;
}

function failureOf(termination: string, finalStep: FinalStep, apiCalls: number, validCalls: number, calls: readonly CallRecord[]): NonNullable<Score['failure']> {
  if (termination === 'output-unparsable') return 'output.unparsable';
  if (termination === 'max-turns' || termination === 'max-tool-calls' || termination === 'time-limit') return 'limit.exceeded';
  if (validCalls < apiCalls) {
    const unknown = calls.some((call) => call.type === 'tool' && !call.result.ok && call.result.error.code === 'tool.unknown');
    return unknown ? 'tool.unknown' : 'arguments.invalid';
  }
  void finalStep;
  return 'result.wrong';
}

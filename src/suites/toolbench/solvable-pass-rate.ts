/**
 * StableToolBench's Solvable Pass Rate (reference §5.5, `eval_pass_rate.py`). Per query and judge
 * run: no final Finish call -> Unsolved; an empty answer or a give-up -> Unsolved; otherwise the
 * judge's `check_answer_status(query, final_answer)`, and on Unsure `parse_answer_status(query,
 * full answer)`. A run scores (Solved + 0.5 * Unsure) / queries; runs are reported as mean ± std.
 */
import type { JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';

export const answerStatuses = ['Solved', 'Unsolved', 'Unsure'] as const;
export type AnswerStatus = typeof answerStatuses[number];

/**
 * The status a judge gave: the `answer_status` argument of its function call (an object or its JSON
 * text), else the last status word in its text. Undefined when it named none.
 */
export function parseAnswerStatus(output: JsonValue | undefined): AnswerStatus | undefined {
  if (isJsonObject(output)) {
    const status = output.answer_status;
    return typeof status === 'string' ? normaliseStatus(status) : undefined;
  }
  if (typeof output !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(output);
    if (isJsonObject(parsed)) return parseAnswerStatus(parsed);
  } catch {
    // Not JSON: read the words.
  }
  const words = [...output.matchAll(/\b(Solved|Unsolved|Unsure)\b/gi)];
  const last = words.at(-1);
  return last ? normaliseStatus(last[1]) : undefined;
}

function normaliseStatus(text: string): AnswerStatus | undefined {
  return answerStatuses.find((status) => status.toLowerCase() === text.trim().toLowerCase());
}

export type FinalStep =
  | { kind: 'no-finish' }
  | { kind: 'give-up' }
  | { kind: 'answer'; finalAnswer: string };

export type Judge = {
  checkAnswerStatus(query: string, finalAnswer: string): Promise<AnswerStatus>;
  parseAnswerStatus(query: string, answerDetails: string): Promise<AnswerStatus>;
};

/** One judge run on one query. */
export async function judgeAnswer(query: string, finalStep: FinalStep, answerDetails: string, judge: Judge): Promise<AnswerStatus> {
  if (finalStep.kind !== 'answer' || finalStep.finalAnswer.trim() === '') return 'Unsolved';
  const first = await judge.checkAnswerStatus(query, finalStep.finalAnswer);
  if (first !== 'Unsure') return first;
  return judge.parseAnswerStatus(query, answerDetails);
}

/** (Solved + 0.5 * Unsure) / n over one run's verdicts; 0 for no queries. */
export function solvablePassRate(verdicts: readonly AnswerStatus[]): number {
  if (verdicts.length === 0) return 0;
  const solved = verdicts.filter((verdict) => verdict === 'Solved').length;
  const unsure = verdicts.filter((verdict) => verdict === 'Unsure').length;
  return (solved + 0.5 * unsure) / verdicts.length;
}

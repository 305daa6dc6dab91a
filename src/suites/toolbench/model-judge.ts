/**
 * The StableToolBench evaluator as a `Judge` over any LanguageModel: the filled evaluator prompt as
 * the user message, the one status function offered and required, the status read from the call's
 * arguments (or the text when a model answers in words). Each verdict is stored in a persistent
 * verdict cache keyed by judge, prompt, query, answer and judge run, so `toolforge rescore` and a
 * rerun read the same verdicts without asking again; the judge runs differ only by their run index.
 */
import { ProviderError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { LanguageModel } from '../../models/spec.ts';
import type { EvaluatorPrompts } from './evaluator-prompts.ts';
import { evaluatorRequest } from './evaluator-prompts.ts';
import type { ResponseCache } from './response-cache.ts';
import type { AnswerStatus, Judge } from './solvable-pass-rate.ts';
import { parseAnswerStatus } from './solvable-pass-rate.ts';

/** Asking again when a judge names no status, as the reference's evaluator retries. */
export const judgeAttempts = 3;

export type ModelJudgeOptions = {
  model: LanguageModel;
  /** The judge's reference, part of every verdict's cache key. */
  judgeRef: string;
  prompts: EvaluatorPrompts;
  cache: ResponseCache;
  /** Which of the `--judge-times` runs this judge is (0-based). */
  run: number;
  signal: AbortSignal;
};

/**
 * The judge answered, but never with a status: an invalid response from a helper model, not a score. Its own
 * attempts are spent, so it is not retried again inside the episode.
 */
export class JudgeFault extends ProviderError {
  constructor(message: string) {
    super('provider.invalid-response', message, {
      isRetryable: false,
      fix: 'the judge model does not answer in the evaluator\'s function-call format: use a model that calls tools reliably, or ask it again later',
    });
  }
}

export function createModelJudge(options: ModelJudgeOptions): Judge {
  const ask = async (name: 'check_answer_status' | 'parse_answer_status', variables: Record<string, string>): Promise<AnswerStatus> => {
    const address = { category: 'judge', tool: options.judgeRef, api: name };
    const key: JsonObject = { ...variables, run: options.run };
    const cached = options.cache.get(address, key);
    const cachedStatus = cached ? parseAnswerStatus(cached.response) : undefined;
    if (cachedStatus) return cachedStatus;
    const request = evaluatorRequest(options.prompts, name, variables);
    for (let attempt = 0; attempt < judgeAttempts; attempt += 1) {
      const result = await options.model.generate({ messages: request.messages, tools: request.tools, toolChoice: 'required', settings: {}, signal: options.signal });
      const call = result.message.toolCalls.find((candidate) => candidate.name === name) ?? result.message.toolCalls[0];
      const status = parseAnswerStatus(call ? call.argumentsText : result.message.content);
      if (status) {
        options.cache.set(address, key, { error: '', response: status });
        return status;
      }
    }
    // The judge's fault, not the model's under test: thrown, so the runner retries and never scores it.
    throw new JudgeFault(`judge ${options.judgeRef} named no answer_status (Solved, Unsolved, Unsure) in ${judgeAttempts} attempts for ${name}`);
  };
  return {
    checkAnswerStatus: (query, finalAnswer) => ask('check_answer_status', { query, answer: finalAnswer }),
    parseAnswerStatus: (query, answerDetails) => ask('parse_answer_status', { query, answer: answerDetails }),
  };
}

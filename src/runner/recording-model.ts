/**
 * Wraps an episode's model to keep what the record needs besides messages: the provider's warnings
 * per call, the raw vendor bodies (only when asked: they are large), and how many calls were made.
 */
import type { EpisodeWarning, RawExchange } from '../core/episode.ts';
import type { FinishReason, LanguageModel } from '../models/spec.ts';

export type ModelRecord = { warnings: EpisodeWarning[]; raw: RawExchange[]; calls: number };

const finishWarnings: Partial<Record<FinishReason, string>> = {
  length: 'the answer was cut at the output token limit (finish reason length); raise --max-output-tokens to let it finish',
  error: 'the provider could not read what the model wrote (finish reason error, e.g. a malformed function call)',
};

export function recordModel(inner: LanguageModel, keepRaw: boolean): { model: LanguageModel; record: ModelRecord } {
  const record: ModelRecord = { warnings: [], raw: [], calls: 0 };
  const model: LanguageModel = {
    specificationVersion: inner.specificationVersion,
    provider: inner.provider,
    modelId: inner.modelId,
    async generate(request) {
      record.calls += 1;
      const turn = record.calls;
      const result = await inner.generate(request);
      for (const warning of result.warnings) record.warnings.push({ turn, type: warning.type, message: warning.message });
      // Kept with the episode: an answer cut at the token limit, or a call the provider could not read, is scored as it
      // is, and the reader of a failure should see why it looks the way it does.
      const ending = finishWarnings[result.finishReason];
      if (ending !== undefined) record.warnings.push({ turn, type: 'finish-reason', message: ending });
      if (keepRaw) record.raw.push({ turn, request: result.raw.request, response: result.raw.response });
      return result;
    },
  };
  return { model, record };
}

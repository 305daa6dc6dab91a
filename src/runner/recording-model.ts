/**
 * Wraps an episode's model to keep what the record needs besides messages: the provider's warnings
 * per call, the raw vendor bodies (only when asked: they are large), and how many calls were made.
 */
import type { EpisodeWarning, RawExchange } from '../core/episode.ts';
import type { LanguageModel } from '../models/spec.ts';

export type ModelRecord = { warnings: EpisodeWarning[]; raw: RawExchange[]; calls: number };

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
      if (keepRaw) record.raw.push({ turn, request: result.raw.request, response: result.raw.response });
      return result;
    },
  };
  return { model, record };
}

/**
 * Paraphrase by a configured model (mode `model_paraphrase`), with the reference's prompt. The
 * answer is cached by a hash of the model and the exact request, so a rerun (or a resumed run)
 * shows the model under test byte-identical queries without asking the paraphraser again.
 */
import { createHash } from 'node:crypto';
import { ConfigError, ProviderError } from '../../core/errors.ts';
import { canonicalJson } from '../../core/json.ts';
import { openJsonMapFile } from '../../core/json-map-file.ts';
import type { Message } from '../../core/message.ts';
import type { GenerationSettings, LanguageModel } from '../../models/spec.ts';

export const paraphraseSystemPrompt = 'You are a skilled language agent versed in paraphrasing text.';

export function paraphraseUserPrompt(query: string): string {
  return 'Paraphrase the following user query while keeping the meaning identical. '
    + `Do NOT change named entities or specific values.\n\nQuery: ${query}\n\nParaphrase:`;
}

/** Where paraphrases are kept between runs. */
export interface ParaphraseCache {
  get(key: string): string | undefined;
  set(key: string, paraphrase: string): void;
}

export function createMemoryParaphraseCache(): ParaphraseCache {
  const entries = new Map<string, string>();
  return { get: (key) => entries.get(key), set: (key, value) => void entries.set(key, value) };
}

/**
 * A file of paraphrases (core/json-map-file.ts: one `{"<hash>": "<paraphrase>"}` per line, appended; the single-object
 * files of earlier versions are read and converted). `placementFix` says how the caller chooses where it is, for a file
 * that cannot be used where it is.
 */
export function createFileParaphraseCache(path: string, placementFix = 'keep it in a folder you can write'): ParaphraseCache {
  return openJsonMapFile(path, {
    isValue: (value): value is string => typeof value === 'string',
    lineShape: 'a JSON object of paraphrases',
    damaged: (reason) => new ConfigError('input.invalid', `the paraphrase cache '${path}' cannot be read: ${reason}`, {
      fix: 'restore it from a backup, or delete it: the paraphrasing model is then asked again (and may phrase some queries differently)',
    }),
    unusable: (reason) => new ConfigError('input.unreadable', `the paraphrase cache '${path}' cannot be used: ${reason}`, {
      fix: placementFix,
    }),
  });
}

export type ParaphraseOptions = {
  model: LanguageModel;
  cache: ParaphraseCache;
  signal?: AbortSignal;
  /** Reference: temperature 0.1; 0 here, since the cache makes reruns identical anyway. */
  settings?: GenerationSettings;
};

export function paraphraseCacheKey(model: Pick<LanguageModel, 'provider' | 'modelId'>, messages: readonly Message[], settings: GenerationSettings): string {
  return createHash('sha256').update(canonicalJson({ model: `${model.provider}/${model.modelId}`, messages, settings })).digest('hex');
}

export async function paraphraseQuery(query: string, options: ParaphraseOptions): Promise<string> {
  const settings = options.settings ?? { temperature: 0 };
  const messages: Message[] = [{ role: 'system', content: paraphraseSystemPrompt }, { role: 'user', content: paraphraseUserPrompt(query) }];
  const key = paraphraseCacheKey(options.model, messages, settings);
  const cached = options.cache.get(key);
  if (cached !== undefined) return cached;
  const result = await options.model.generate({ messages, tools: [], toolChoice: 'none', settings, signal: options.signal ?? new AbortController().signal });
  const paraphrase = cleanParaphrase(result.message.content);
  if (paraphrase === '') {
    // The paraphraser is infrastructure here, not the model under test: retry rather than score.
    throw new ProviderError('provider.invalid-response', `paraphrase model ${options.model.provider}/${options.model.modelId} returned no text`, {
      isRetryable: true, fix: 'check the paraphrase model, or use another one',
    });
  }
  options.cache.set(key, paraphrase);
  return paraphrase;
}

/** The answer without a repeated "Paraphrase:" label or wrapping quotes. */
export function cleanParaphrase(text: string): string {
  let cleaned = text.trim().replace(/^paraphrase\s*:\s*/i, '').trim();
  if (cleaned.length >= 2 && /^["“']/.test(cleaned) && /["”']$/.test(cleaned)) cleaned = cleaned.slice(1, -1).trim();
  return cleaned;
}

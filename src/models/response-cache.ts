/**
 * A response cache in front of a provider model: the same exact request (model, endpoint, messages, tools, tool
 * choice, settings) is answered from the cache instead of the provider, so a rerun costs nothing and gives the same
 * answers. Only requests that ask for a repeatable answer are cached by default (temperature 0): caching a sampled
 * answer would silently turn k trials into one.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/json.ts';
import type { GenerateRequest, GenerateResult, LanguageModel, ModelSource } from './spec.ts';

/** Where cached responses live (the store implements it over SQLite). Values are JSON text. */
export interface ResponseCacheStorage {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

/** 'deterministic': only temperature-0 requests; 'all': every request (e.g. to replay a sampled run exactly). */
export type ResponseCachePolicy = 'deterministic' | 'all';

export type ResponseCacheCounters = { hits: number; misses: number; uncacheable: number };

export function cacheKey(model: Pick<LanguageModel, 'provider' | 'modelId'>, endpoint: string | undefined, request: GenerateRequest): string {
  const { signal: _signal, ...exact } = request;
  return createHash('sha256').update(canonicalJson({ provider: model.provider, modelId: model.modelId, endpoint: endpoint ?? null, request: exact })).digest('hex');
}

export function isCacheable(request: GenerateRequest, policy: ResponseCachePolicy): boolean {
  return policy === 'all' || request.settings.temperature === 0;
}

/** Wraps every episode's model of `source`; `counters` tells how many requests the cache answered. */
export function withResponseCache(
  source: ModelSource,
  options: { storage: ResponseCacheStorage; policy: ResponseCachePolicy; endpoint?: string; counters?: ResponseCacheCounters },
): ModelSource {
  const counters = options.counters ?? { hits: 0, misses: 0, uncacheable: 0 };
  return {
    ...source,
    ref: source.ref,
    forEpisode(episode) {
      const model = source.forEpisode(episode);
      return {
        specificationVersion: model.specificationVersion,
        provider: model.provider,
        modelId: model.modelId,
        async generate(request) {
          if (!isCacheable(request, options.policy)) {
            counters.uncacheable += 1;
            return model.generate(request);
          }
          const key = cacheKey(model, options.endpoint, request);
          const stored = options.storage.get(key);
          if (stored !== undefined) {
            counters.hits += 1;
            return JSON.parse(stored) as GenerateResult;
          }
          const result = await model.generate(request);
          counters.misses += 1;
          options.storage.set(key, JSON.stringify(result));
          return result;
        },
      };
    },
  };
}

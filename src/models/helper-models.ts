/**
 * Models a suite calls for its own work, not the model under test: an LLM that plays an API server (toolbench's
 * simulator), a judge, a paraphraser. Their requests fail like any provider's (429, 5xx, timeouts, dropped
 * connections) and are retried the same way, inside the call, on the run's retry policy and wait budget: a rate
 * limit on the simulator no longer ends the episode it served as an infrastructure error. Each retry is counted on
 * that episode, and the episode clock stops while a helper waits on its provider, as it does for the tested model.
 */
import type { BaseUrlFlag } from './registry.ts';
import type { RequestRetryPolicy, RetryWaitBudget } from './request-retry.ts';
import { createRetryWaitBudget, defaultRequestRetryPolicy } from './request-retry.ts';
import { createRetryingModelSource } from './retrying-model-source.ts';
import type { EpisodeContext, LanguageModel, ModelSource } from './spec.ts';

/** The helper models of one episode. */
export type HelperModels = {
  /**
   * The provider model `ref` (with `baseUrl`, an OpenAI-compatible server's address), its requests retried. A missing
   * key or address is a ConfigError that names `baseUrlFlag`, the user's way to give the address.
   */
  model(ref: string, options?: HelperModelOptions): LanguageModel;
};

export type HelperModelOptions = { baseUrl?: string; baseUrlFlag?: BaseUrlFlag };

/** A run's helper models: one source per reference and address, all on the run's wait budget. */
export type HelperModelSources = {
  forEpisode(episode: EpisodeContext): HelperModels;
};

export type HelperModelSourcesOptions = {
  /** The run's `--max-retries`, `--request-timeout` and `--max-retry-wait` (default: defaultRequestRetryPolicy). */
  retry?: Partial<RequestRetryPolicy>;
  /** Where API keys are read (default: process.env). */
  env?: Record<string, string | undefined>;
  /** The run's wait budget, shared with the model under test (default: a budget of the helpers' own). */
  budget?: RetryWaitBudget;
};

export function createHelperModelSources(options: HelperModelSourcesOptions = {}): HelperModelSources {
  const retry: RequestRetryPolicy = { ...defaultRequestRetryPolicy, ...options.retry };
  const budget = options.budget ?? createRetryWaitBudget(retry);
  const sources = new Map<string, ModelSource>();
  const sourceOf = (ref: string, { baseUrl, baseUrlFlag }: HelperModelOptions): ModelSource => {
    const key = `${ref}\n${baseUrl ?? ''}`;
    let source = sources.get(key);
    if (source === undefined) {
      source = createRetryingModelSource(ref, { baseUrl, env: options.env, retry, budget, ...(baseUrlFlag ? { baseUrlFlag } : {}) });
      sources.set(key, source);
    }
    return source;
  };
  return { forEpisode: (episode) => ({ model: (ref, modelOptions = {}) => sourceOf(ref, modelOptions).forEpisode(episode) }) };
}

let processHelperSources: HelperModelSources | undefined;

/**
 * For a suite used outside the runner (its environment or scorer called directly): the default retry policy, and one
 * wait budget for the process.
 */
export function defaultHelperModels(episode: EpisodeContext): HelperModels {
  processHelperSources ??= createHelperModelSources();
  return processHelperSources.forEpisode(episode);
}

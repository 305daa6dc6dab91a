import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import type { BaseUrlFlag } from '../models/registry.ts';
import { parseModelReference } from '../models/registry.ts';
import type { RequestRetryPolicy, RetryWaitBudget } from '../models/request-retry.ts';
import { defaultRequestRetryPolicy } from '../models/request-retry.ts';
import { createRetryingModelSource } from '../models/retrying-model-source.ts';
import type { ModelSource } from '../models/spec.ts';
import type { BuiltinModel, Suite } from '../suites/spec.ts';

const replayPrefix = 'replay/';

/**
 * The reference a model is made from when relative paths are read from `directory` (an eval set's folder): a replay
 * file given relative (`replay/outputs.jsonl`) is read from there when it exists there, as a file knob is (see
 * resolveKnobs); otherwise, and for every other reference, the reference as given (a replay file in the working folder).
 */
export function modelReferenceIn(ref: string, directory: string | undefined): string {
  if (directory === undefined || !ref.startsWith(replayPrefix)) return ref;
  const file = ref.slice(replayPrefix.length);
  if (file === '' || isAbsolute(file)) return ref;
  const inDirectory = resolve(directory, file);
  return existsSync(inDirectory) ? `${replayPrefix}${inDirectory}` : ref;
}

/**
 * `builtin/<name>` comes from the suite (oracle, random, planner read the task); every other
 * reference from the model registry. Either way a bad reference fails here, before anything runs.
 * Network models get request retries (on `budget`, the run's wait budget, or one of their own); replay and built-in
 * models never fail a request, so they are used as they are.
 */
export function resolveModelSource(
  suite: Suite,
  ref: string,
  options: { baseUrl?: string; env?: Record<string, string | undefined>; retry?: Partial<RequestRetryPolicy>; budget?: RetryWaitBudget; baseUrlFlag?: BaseUrlFlag } = {},
): ModelSource {
  const reference = parseModelReference(ref);
  if (reference.provider !== 'builtin') {
    const retry: RequestRetryPolicy = { ...defaultRequestRetryPolicy, ...options.retry };
    return createRetryingModelSource(ref, { baseUrl: options.baseUrl, env: options.env, retry, budget: options.budget, ...(options.baseUrlFlag ? { baseUrlFlag: options.baseUrlFlag } : {}) });
  }
  // `builtin/<name>?key=value&...`: parameters of a built-in model (e.g. builtin/noisy?p=0.3).
  const [name, query] = splitQuery(reference.modelId);
  const named = Object.hasOwn(suite.builtinModels, name) ? suite.builtinModels[name] : undefined;
  const builtin = named && query !== undefined ? configureBuiltin(ref, named, query) : named;
  if (!builtin) {
    const names = Object.keys(suite.builtinModels).map((candidate) => `builtin/${candidate}`);
    throw new ConfigError('config.unknown-model', `suite '${suite.id}' has no built-in model '${name}'`, {
      fix: `use one of: ${names.join(', ') || '(none)'}, or a provider model such as openai/<model>`,
    });
  }
  return { ref, forEpisode: (episode) => builtin.create(episode) };
}

function splitQuery(modelId: string): [string, string | undefined] {
  const mark = modelId.indexOf('?');
  return mark === -1 ? [modelId, undefined] : [modelId.slice(0, mark), modelId.slice(mark + 1)];
}

function configureBuiltin(ref: string, builtin: BuiltinModel, query: string): BuiltinModel {
  if (!builtin.configure) {
    throw new ConfigError('config.unknown-model', `'${ref}': this built-in model takes no parameters`, { fix: `drop '?${query}' from the reference` });
  }
  return builtin.configure(Object.fromEntries(new URLSearchParams(query)));
}

import { ConfigError } from '../core/errors.ts';
import { createModelSource, parseModelReference } from '../models/registry.ts';
import type { ModelSource } from '../models/spec.ts';
import type { Suite } from '../suites/spec.ts';

/**
 * `builtin/<name>` comes from the suite (oracle, random, planner read the task); every other
 * reference from the model registry. Either way a bad reference fails here, before anything runs.
 */
export function resolveModelSource(
  suite: Suite,
  ref: string,
  options: { baseUrl?: string; env?: Record<string, string | undefined> } = {},
): ModelSource {
  const reference = parseModelReference(ref);
  if (reference.provider !== 'builtin') return createModelSource(ref, { baseUrl: options.baseUrl, env: options.env });
  const name = reference.modelId;
  const builtin = Object.hasOwn(suite.builtinModels, name) ? suite.builtinModels[name] : undefined;
  if (!builtin) {
    const names = Object.keys(suite.builtinModels).map((candidate) => `builtin/${candidate}`);
    throw new ConfigError('config.unknown-model', `suite '${suite.id}' has no built-in model '${name}'`, {
      fix: `use one of: ${names.join(', ') || '(none)'}, or a provider model such as openai/<model>`,
    });
  }
  return { ref, forEpisode: (episode) => builtin.create(episode) };
}

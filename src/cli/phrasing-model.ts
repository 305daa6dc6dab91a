import { ConfigError } from '../core/errors.ts';
import { createModelSource, parseModelReference } from '../models/registry.ts';
import type { ModelSource } from '../models/spec.ts';
import type { CliIo } from './cli-io.ts';

/**
 * `--phrasing-model <ref>`: a language model that rewrites generated task text (`--set phrasing=model`).
 * Built-in models read tasks rather than write prose, so only provider models qualify.
 */
export function createPhrasingModel(ref: string | undefined, baseUrl: string | undefined, io: CliIo): ModelSource | undefined {
  if (ref === undefined) return undefined;
  if (parseModelReference(ref).provider === 'builtin') {
    throw new ConfigError('config.unknown-model', `--phrasing-model ${ref}: built-in models cannot phrase tasks`, {
      fix: 'pass a provider model, e.g. --phrasing-model openai/gpt-4.1, or use --set phrasing=template',
    });
  }
  return createModelSource(ref, { baseUrl, env: io.env });
}

import { ConfigError } from '../core/errors.ts';
import { commandLineBaseUrlFlag, parseModelReference } from '../models/registry.ts';
import type { RequestRetryPolicy, RetryWaitBudget } from '../models/request-retry.ts';
import { defaultRequestRetryPolicy } from '../models/request-retry.ts';
import { createRetryingModelSource } from '../models/retrying-model-source.ts';
import type { ModelSource } from '../models/spec.ts';
import type { CliIo } from './cli-io.ts';

/**
 * `--phrasing-model <ref>`: a language model that rewrites generated task text (`--set phrasing=model`).
 * Built-in models read tasks rather than write prose, so only provider models qualify. Its requests are retried
 * like the tested model's (a 429 on the hundredth paraphrase must not end the command): on `run`'s retry flags and
 * its wait budget, on the defaults for `generate`.
 */
export function createPhrasingModel(
  ref: string | undefined, baseUrl: string | undefined, io: CliIo, retry: Partial<RequestRetryPolicy> = {}, budget?: RetryWaitBudget,
): ModelSource | undefined {
  if (ref === undefined) return undefined;
  if (parseModelReference(ref).provider === 'builtin') {
    throw new ConfigError('config.unknown-model', `--phrasing-model ${ref}: built-in models cannot phrase tasks`, {
      fix: 'pass a provider model, e.g. --phrasing-model openai/gpt-4.1, or use --set phrasing=template',
    });
  }
  return createRetryingModelSource(ref, { baseUrl, env: io.env, retry: { ...defaultRequestRetryPolicy, ...retry }, budget, baseUrlFlag: commandLineBaseUrlFlag('--phrasing-base-url') });
}

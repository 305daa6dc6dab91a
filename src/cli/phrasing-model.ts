import { ConfigError, ProviderError } from '../core/errors.ts';
import { commandLineBaseUrlFlag, parseModelReference } from '../models/registry.ts';
import type { RequestRetryPolicy, RetryWaitBudget } from '../models/request-retry.ts';
import { createRetryWaitBudget, defaultRequestRetryPolicy } from '../models/request-retry.ts';
import { createRetryingModelSource } from '../models/retrying-model-source.ts';
import type { LanguageModel, ModelSource } from '../models/spec.ts';
import type { CliIo } from './cli-io.ts';

/**
 * `--phrasing-model <ref>`: a language model that rewrites generated task text (`--set phrasing=model`).
 * Built-in models read tasks rather than write prose, so only provider models qualify. Its requests are retried
 * like the tested model's (a 429 on the hundredth paraphrase must not end the command), on the command's retry flags
 * (`run`, `generate`) and, in `run`, on the run's wait budget.
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
  const source = createRetryingModelSource(ref, { baseUrl, env: io.env, retry: { ...defaultRequestRetryPolicy, ...retry }, budget: budget ?? createRetryWaitBudget({ ...defaultRequestRetryPolicy, ...retry }, 'phrasing model'), baseUrlFlag: commandLineBaseUrlFlag('--phrasing-base-url') });
  return { ref: source.ref, forEpisode: (episode) => withPhrasingFix(source.forEpisode(episode), ref) };
}

/**
 * A provider failure that outlasted its retries, restated for the command that was making tasks: the retry layer's
 * fix speaks of a run's --concurrency and --resume, but no run has its tasks yet (a run whose tasks could not all be
 * made is not kept), and the paraphrases already made are not asked again.
 */
function withPhrasingFix(model: LanguageModel, ref: string): LanguageModel {
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    async generate(request) {
      try {
        return await model.generate(request);
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        throw new ProviderError(error.code, `--phrasing-model ${ref}: ${error.problem}`, {
          isRetryable: error.isRetryable, cause: error,
          ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }),
          fix: 'run the same command again when its service answers (the paraphrases already made are kept in the paraphrase cache and not asked again), or raise --max-retries or --max-retry-wait to wait longer',
        });
      }
    },
  };
}

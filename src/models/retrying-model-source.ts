/**
 * A provider model as the runner uses it: built from the model registry, each attempt timed by the retry layer
 * (the SDK's own timer a backstop just behind it), and every failed request retried on its own (request-retry.ts).
 * Replay models never fail a request, so they are used as they are.
 */
import { longestTimerMs } from '../core/limits.ts';
import type { BaseUrlFlag } from './registry.ts';
import { createModelSource, parseModelReference } from './registry.ts';
import type { RequestRetryPolicy, RetryWaitBudget } from './request-retry.ts';
import { withRequestRetries } from './request-retry.ts';
import type { ModelSource } from './spec.ts';

const sdkTimeoutBackstopMs = 1_000;

export type RetryingModelSourceOptions = {
  baseUrl?: string;
  env?: Record<string, string | undefined>;
  retry: RequestRetryPolicy;
  /** The run's wait budget, when this source shares it with the run's other models. */
  budget?: RetryWaitBudget;
  /** How the user gives `baseUrl`, for the error when it is missing (default `--base-url`). */
  baseUrlFlag?: BaseUrlFlag;
};

export function createRetryingModelSource(ref: string, options: RetryingModelSourceOptions): ModelSource {
  const { retry } = options;
  const source = createModelSource(ref, {
    baseUrl: options.baseUrl, env: options.env, requestTimeoutMs: Math.min(longestTimerMs, retry.timeoutMs + sdkTimeoutBackstopMs), ...(options.baseUrlFlag ? { baseUrlFlag: options.baseUrlFlag } : {}),
  });
  return parseModelReference(ref).provider === 'replay' ? source : withRequestRetries(source, retry, options.budget);
}

import { ProviderError, isRetryableError } from '../core/errors.ts';
import { defaultRequestRetryPolicy } from '../models/request-retry.ts';
import type { RequestRetryPolicy } from '../models/request-retry.ts';
import { backoffDelayMs, sleepUnlessAborted } from '../models/retry-backoff.ts';

/**
 * How a run retries what was not the model's fault. Model requests are retried on their own, inside
 * the episode (src/models/request-retry.ts: `maxRetries` per request, `maxTotalWaitMs` per run); a
 * whole episode is restarted only when its environment or sandbox broke (`maxAttempts`). Waits are
 * the provider's Retry-After or exponential backoff with jitter; `sleep`, `random` and `now` are
 * injectable so tests run instantly and deterministically (jitter never touches generation or scoring).
 */
export type RetryPolicy = RequestRetryPolicy & {
  /** Attempts per episode when its environment or sandbox broke, the first included. */
  maxAttempts: number;
};

export const defaultRetryPolicy: RetryPolicy = { ...defaultRequestRetryPolicy, maxAttempts: 5 };

/**
 * Whether a failed episode is run again from the start: only when the environment or sandbox broke.
 * A provider error has already been retried where it happened, so replaying every turn would only
 * pay for them again.
 */
export function shouldRestartEpisode(error: unknown): boolean {
  return isRetryableError(error) && !(error instanceof ProviderError);
}

/** The wait before attempt `failedAttempt + 1`. */
export function retryDelayMs(error: unknown, failedAttempt: number, policy: RetryPolicy): number {
  return backoffDelayMs(error, failedAttempt, policy);
}

export { sleepUnlessAborted };

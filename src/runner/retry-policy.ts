import { ProviderError } from '../core/errors.ts';

/**
 * How the runner retries infrastructure errors that may pass (isRetryableError): exponential backoff
 * with jitter, or exactly what the provider asked for (Retry-After). `sleep` and `random` are
 * injectable so tests run instantly and deterministically; jitter only spreads load, it never
 * touches generation or scoring.
 */
export type RetryPolicy = {
  /** Attempts per episode, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep(delayMs: number, signal: AbortSignal): Promise<void>;
  /** Uniform in [0, 1). */
  random(): number;
};

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  sleep: sleepUnlessAborted,
  random: Math.random,
};

/** The wait before attempt `failedAttempt + 1`. */
export function retryDelayMs(error: unknown, failedAttempt: number, policy: RetryPolicy): number {
  if (error instanceof ProviderError && error.retryAfterSeconds !== undefined && error.retryAfterSeconds >= 0) {
    return Math.round(error.retryAfterSeconds * 1000);
  }
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
  // "Equal jitter": at least half the backoff, so retries never stampede back at once.
  return Math.round(exponential / 2 + policy.random() * (exponential / 2));
}

/** Resolves after `delayMs`, or early (without error) when the signal aborts. */
export function sleepUnlessAborted(delayMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

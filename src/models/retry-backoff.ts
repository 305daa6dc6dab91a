/**
 * How long to wait before trying again: exactly what the provider asked for (Retry-After), else
 * exponential backoff with "equal jitter". Used by the request retries (request-retry.ts) and by the
 * runner's episode restarts. `random` and `sleep` are injected so tests are instant and exact; jitter
 * only spreads load, it never touches generation or scoring.
 */
import { ProviderError } from '../core/errors.ts';
import { longestTimerMs } from '../core/limits.ts';

export type BackoffPolicy = {
  baseDelayMs: number;
  maxDelayMs: number;
  /** Uniform in [0, 1). */
  random(): number;
};

/** The wait after failed attempt `failedAttempt` (from 1). */
export function backoffDelayMs(error: unknown, failedAttempt: number, policy: BackoffPolicy): number {
  // A wait of nothing (Retry-After: 0, a date already past) is no wait to honour: backing off keeps retries apart.
  if (error instanceof ProviderError && error.retryAfterSeconds !== undefined && error.retryAfterSeconds > 0) {
    return Math.round(error.retryAfterSeconds * 1000);
  }
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
  // At least half the backoff, so retries never stampede back at once.
  return Math.round(exponential / 2 + policy.random() * (exponential / 2));
}

/** Resolves after `delayMs`, or early (without error) when the signal aborts; leaves no listener behind. */
export function sleepUnlessAborted(delayMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    // A wait past a Node timer's reach (a Retry-After of weeks, under a budget that allows it) is slept in pieces.
    let leftMs = delayMs;
    const wait = (): NodeJS.Timeout => setTimeout(() => {
      leftMs -= longestTimerMs;
      if (leftMs > 0) {
        timer = wait();
        return;
      }
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, Math.min(leftMs, longestTimerMs));
    let timer = wait();
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

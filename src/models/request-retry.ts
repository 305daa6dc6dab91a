/**
 * Retries where they belong: a failed model request is retried on its own, inside the episode, so
 * the conversation continues from the same turn instead of replaying (and paying for) every turn
 * before it. Rate limits (429), server errors (5xx, 529, 408), timeouts, dropped connections and
 * invalid bodies are retried with backoff or the provider's Retry-After, up to `maxRetries` per
 * request and while the run's wait budget lasts; anything else, or the last failure, is thrown as
 * the ProviderError it is (infrastructure: the runner records it unscored and `--resume` reruns it).
 *
 * Each attempt gets its own timeout and its own AbortSignal, so a hanging provider fails as
 * `provider.timeout` and SDKs that never remove their abort listeners leave them on a signal that
 * dies with the attempt (not on the episode's, which would collect one per turn). While a request is
 * in flight the episode clock is stopped; only the attempt that answered is charged to it.
 */
import { ProviderError, errorMessage } from '../core/errors.ts';
import { backoffDelayMs, sleepUnlessAborted } from './retry-backoff.ts';
import type { EpisodeRequestHooks, GenerateRequest, GenerateResult, LanguageModel, ModelSource } from './spec.ts';

export type RequestRetryPolicy = {
  /** Retries per request after its first attempt (`--max-retries`). */
  maxRetries: number;
  /** Each attempt's timeout (`--request-timeout`); also given to the vendor SDK. */
  timeoutMs: number;
  /**
   * What one run may lose to retries, summed over all its requests (`--max-retry-wait`): the time of
   * failed attempts plus the waits after them. When it is spent, failures are no longer retried.
   */
  maxTotalWaitMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep(delayMs: number, signal: AbortSignal): Promise<void>;
  /** Uniform in [0, 1), for jitter. */
  random(): number;
  /** Monotonic milliseconds, to measure attempts. */
  now(): number;
};

export const defaultRequestRetryPolicy: RequestRetryPolicy = {
  maxRetries: 6,
  timeoutMs: 120_000,
  maxTotalWaitMs: 1_800_000,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  sleep: sleepUnlessAborted,
  random: Math.random,
  now: () => performance.now(),
};

/** What a run may still lose to retries (`maxTotalWaitMs` less what was lost); sources that share one share the wait. */
/** `owner`: whose budget it is, as the give-up message names it ('run', 'sweep', 'worker', ...; default 'run'). */
export type RetryWaitBudget = { remainingMs: number; owner?: string };

export function createRetryWaitBudget(policy: Pick<RequestRetryPolicy, 'maxTotalWaitMs'>, owner = 'run'): RetryWaitBudget {
  return { remainingMs: policy.maxTotalWaitMs, owner };
}

/**
 * Wraps every model a source hands out; all of them draw on one wait budget: the source's own, or `budget` when the
 * run's other models (the helpers a suite calls, helper-models.ts) share it.
 */
export function withRequestRetries(source: ModelSource, policy: RequestRetryPolicy, budget: RetryWaitBudget = createRetryWaitBudget(policy)): ModelSource {
  return {
    ref: source.ref,
    forEpisode: (episode) => retryingModel(source.forEpisode(episode), policy, budget, episode.requests),
  };
}

function retryingModel(model: LanguageModel, policy: RequestRetryPolicy, budget: RetryWaitBudget, hooks: EpisodeRequestHooks | undefined): LanguageModel {
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const resumeClock = hooks?.pauseClock();
      let chargedMs = 0;
      try {
        for (let attempt = 1; ; attempt += 1) {
          const startedMs = policy.now();
          let error: unknown;
          try {
            const result = await attemptWithTimeout(model, request, policy.timeoutMs);
            chargedMs = policy.now() - startedMs;
            return result;
          } catch (caught) {
            error = caught;
          }
          if (request.signal.aborted || !(error instanceof ProviderError) || !error.isRetryable) throw error;
          const failedAttemptMs = policy.now() - startedMs;
          if (attempt > policy.maxRetries) {
            throw withNote(error, `gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}`, '--max-retries');
          }
          const delayMs = backoffDelayMs(error, attempt, policy);
          if (failedAttemptMs + delayMs > budget.remainingMs) {
            throw withNote(error, `not retried: waiting ${Math.round(delayMs)} ms more would exceed the ${budget.owner ?? 'run'}'s retry wait budget of ${policy.maxTotalWaitMs} ms (${Math.max(0, Math.round(budget.remainingMs))} ms left)`,
              '--max-retry-wait');
          }
          budget.remainingMs -= failedAttemptMs + delayMs;
          hooks?.onRetry({ cause: error.code, failedAttempt: attempt, failedAttemptMs, delayMs, message: errorMessage(error) });
          await policy.sleep(delayMs, request.signal);
          if (request.signal.aborted) throw abortReason(request.signal);
        }
      } finally {
        resumeClock?.(chargedMs);
      }
    },
  };
}

/**
 * One attempt on a signal of its own: aborted by the caller's signal or by the timeout. A timeout
 * becomes a retryable `provider.timeout`, whichever fired first (this timer or the SDK's own).
 */
async function attemptWithTimeout(model: LanguageModel, request: GenerateRequest, timeoutMs: number): Promise<GenerateResult> {
  const controller = new AbortController();
  const forwardAbort = (): void => controller.abort(request.signal.reason);
  if (request.signal.aborted) forwardAbort();
  else request.signal.addEventListener('abort', forwardAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`request timed out after ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  try {
    return await model.generate({ ...request, signal: controller.signal });
  } catch (error) {
    if (timedOut && !request.signal.aborted) {
      throw new ProviderError('provider.timeout', `request to ${model.provider} model '${model.modelId}' timed out after ${timeoutMs} ms`, {
        isRetryable: true, cause: error, fix: 'the provider did not answer in time; raise --request-timeout if the model is just slow',
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', forwardAbort);
  }
}

/** The same failure, with why it was not retried (again). */
/** The error with why it was not retried again; its fix adds the flag that allows more (and --resume, once). */
function withNote(error: ProviderError, note: string, flag: '--max-retries' | '--max-retry-wait'): ProviderError {
  const message = error.problem;
  const fix = error.fix === undefined ? `resume the run later with --resume, or raise ${flag}`
    : error.fix.includes('--resume') ? `${error.fix} (or raise ${flag})` : `${error.fix}; resume the run later with --resume, or raise ${flag}`;
  return new ProviderError(error.code, `${message} (${note})`, {
    statusCode: error.statusCode, isRetryable: error.isRetryable, retryAfterSeconds: error.retryAfterSeconds, cause: error, fix,
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

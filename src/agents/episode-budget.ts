/**
 * The limits every generic agent enforces: model turns, tool calls and wall-clock time. Time is a
 * signal (the runner's cancellation combined with the episode clock for `limits.timeLimitMs`), so an
 * in-flight model call is aborted when the budget runs out instead of the episode overrunning it.
 * The runner passes its own clock (AgentContext.clock), which stops while a provider is waited on.
 */
import type { Limits } from '../core/limits.ts';
import type { Termination } from '../core/termination.ts';
import type { EpisodeClock } from './episode-clock.ts';
import { startEpisodeClock } from './episode-clock.ts';
import { linkAbortSignals } from '../core/linked-abort-signal.ts';

export type EpisodeBudget = {
  /** Aborts when the time limit passes or the runner cancels; pass it to the model and the environment. */
  readonly signal: AbortSignal;
  /** Why the episode must stop now, or undefined while it may go on. */
  stopReason(): Termination | undefined;
  dispose(): void;
};

export function startEpisodeBudget(limits: Limits, outerSignal: AbortSignal, runnerClock?: EpisodeClock): EpisodeBudget {
  // Only the wall-clock budget depends on time, never generation or scoring.
  const clock = runnerClock ?? startEpisodeClock(limits.timeLimitMs);
  const linked = linkAbortSignals([outerSignal, clock.signal]);
  return {
    signal: linked.signal,
    stopReason() {
      if (clock.signal.aborted) return 'time-limit';
      if (outerSignal.aborted) return terminationForAbort(outerSignal.reason);
      return undefined;
    },
    dispose() {
      linked.unlink();
      // The runner's clock is the runner's to stop.
      if (runnerClock === undefined) clock.dispose();
    },
  };
}

/**
 * The runner may pass a timeout signal (AbortSignal.timeout gives a TimeoutError): that is the time
 * limit. Any other abort is the run being stopped.
 */
function terminationForAbort(reason: unknown): Termination {
  return reason instanceof DOMException && reason.name === 'TimeoutError' ? 'time-limit' : 'cancelled';
}

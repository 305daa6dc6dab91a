/**
 * An episode's wall-clock time limit as a signal that can be paused. The runner pauses it while a
 * network model request is in flight (src/models/request-retry.ts) and charges back only the attempt
 * that answered: time lost to a provider that hung, failed or asked us to wait is infrastructure, and
 * must never end the episode as the model's `time-limit`.
 */
export type EpisodeClock = {
  /** Aborts with a TimeoutError once the charged time reaches the limit. */
  readonly signal: AbortSignal;
  /** Stops the clock (pauses nest); call the returned function once to restart it, charging `chargedMs`. */
  pause(): (chargedMs: number) => void;
  dispose(): void;
};

/** `now` is monotonic milliseconds; a clock read is fine here: only the time budget depends on it, never scoring. */
export function startEpisodeClock(limitMs: number, now: () => number = () => performance.now()): EpisodeClock {
  const controller = new AbortController();
  let remainingMs = limitMs;
  let runningSinceMs = now();
  let pauses = 0;
  let timer: NodeJS.Timeout | undefined;
  const expire = (): void => {
    timer = undefined;
    controller.abort(new DOMException('episode time limit reached', 'TimeoutError'));
  };
  const run = (): void => {
    if (controller.signal.aborted) return;
    if (remainingMs <= 0) return expire();
    runningSinceMs = now();
    timer = setTimeout(expire, remainingMs);
  };
  run();
  return {
    signal: controller.signal,
    pause() {
      if (pauses === 0 && timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
        remainingMs -= now() - runningSinceMs;
      }
      pauses += 1;
      let isResumed = false;
      return (chargedMs) => {
        if (isResumed) return;
        isResumed = true;
        pauses -= 1;
        remainingMs -= Math.max(0, chargedMs);
        if (pauses === 0) run();
      };
    },
    dispose() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

/**
 * A signal that aborts when any of its sources does (with that source's reason), and that lets go of them when
 * `unlink()` is called. AbortSignal.any does the same but leaves an entry on every long-lived source (the run's
 * signal) for each derived signal until the garbage collector's finalizers run: one per episode, so a
 * 100,000-episode run kept tens of thousands of them. Here each source holds one listener per signal in use, removed
 * when the episode ends.
 */
import { setMaxListeners } from 'node:events';

export type LinkedAbortSignal = { readonly signal: AbortSignal; unlink(): void };

export function linkAbortSignals(sources: readonly AbortSignal[]): LinkedAbortSignal {
  const controller = new AbortController();
  const listeners: [AbortSignal, () => void][] = [];
  const unlink = (): void => {
    for (const [source, listener] of listeners) source.removeEventListener('abort', listener);
    listeners.length = 0;
  };
  for (const source of sources) {
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    const listener = (): void => {
      controller.abort(source.reason);
      unlink();
    };
    // A run's signal carries one listener per episode in flight (hundreds at --concurrency 256): not a leak.
    setMaxListeners(0, source);
    source.addEventListener('abort', listener, { once: true });
    listeners.push([source, listener]);
  }
  if (controller.signal.aborted) unlink();
  return { signal: controller.signal, unlink };
}

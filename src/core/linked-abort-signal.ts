/**
 * A signal that aborts when any of its sources does (with that source's reason), and that lets go of them when
 * `unlink()` is called. AbortSignal.any does the same but leaves an entry on every long-lived source (the run's
 * signal) for each derived signal until the garbage collector's finalizers run: one per episode, so a
 * 100,000-episode run kept tens of thousands of them.
 * A source carries one listener of ours however many signals follow it, which tells its followers in the order they
 * linked: Node's EventTarget walks a signal's listeners on every add and remove, so one listener per episode in
 * flight made each episode's start and end cost time in proportion to the run's concurrency.
 */
export type LinkedAbortSignal = { readonly signal: AbortSignal; unlink(): void };

type Followers = { listeners: Set<() => void>; onAbort: () => void };

const followersOf = new WeakMap<AbortSignal, Followers>();

/** Calls `listener` when `source` aborts; the function returned stops that (and the last one removes our listener). */
function follow(source: AbortSignal, listener: () => void): () => void {
  let followers = followersOf.get(source);
  if (!followers) {
    const listeners = new Set<() => void>();
    const onAbort = (): void => {
      followersOf.delete(source);
      for (const each of listeners) each();
      listeners.clear();
    };
    followers = { listeners, onAbort };
    followersOf.set(source, followers);
    source.addEventListener('abort', onAbort, { once: true });
  }
  const own = followers;
  own.listeners.add(listener);
  return () => {
    own.listeners.delete(listener);
    if (own.listeners.size === 0 && followersOf.get(source) === own) {
      followersOf.delete(source);
      source.removeEventListener('abort', own.onAbort);
    }
  };
}

export function linkAbortSignals(sources: readonly AbortSignal[]): LinkedAbortSignal {
  const controller = new AbortController();
  const stops: (() => void)[] = [];
  const unlink = (): void => {
    for (const stop of stops) stop();
    stops.length = 0;
  };
  for (const source of sources) {
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    stops.push(follow(source, () => {
      controller.abort(source.reason);
      unlink();
    }));
  }
  if (controller.signal.aborted) unlink();
  return { signal: controller.signal, unlink };
}

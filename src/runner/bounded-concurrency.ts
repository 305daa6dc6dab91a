/**
 * Runs `work` over the items with at most `concurrency` in flight, in item order. The items are read
 * lazily (any iterable: a generator holds nothing for items not yet taken). Stops taking new items once
 * `shouldStop()` is true; the first thrown error stops new items and is rethrown after the in-flight
 * ones settle.
 */
export async function forEachWithConcurrency<T>(
  items: Iterable<T>,
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
  shouldStop: () => boolean = () => false,
): Promise<void> {
  const iterator = items[Symbol.iterator]();
  let next = 0;
  let exhausted = false;
  let failure: { error: unknown } | undefined;
  const take = (): { item: T; index: number } | undefined => {
    if (exhausted) return undefined;
    const step = iterator.next();
    if (step.done) {
      exhausted = true;
      return undefined;
    }
    next += 1;
    return { item: step.value, index: next - 1 };
  };
  const worker = async (): Promise<void> => {
    while (!failure && !shouldStop()) {
      const taken = take();
      if (!taken) return;
      try {
        await work(taken.item, taken.index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers = Array.isArray(items) ? Math.min(concurrency, items.length) : concurrency;
  await Promise.all(Array.from({ length: Math.max(1, workers) }, worker));
  if (failure) throw failure.error;
}

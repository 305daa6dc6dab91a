/**
 * Runs `work` over the items with at most `concurrency` in flight, in item order. The items are read
 * lazily (any iterable, or an async one: a generator holds nothing for items not yet taken; an async one may wait
 * for its next item, e.g. tasks still being imported). Stops taking new items once `shouldStop()` is true; the
 * first thrown error stops new items and is rethrown after the in-flight ones settle.
 */
export async function forEachWithConcurrency<T>(
  items: Iterable<T> | AsyncIterable<T>,
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
  shouldStop: () => boolean = () => false,
): Promise<void> {
  const iterator: Iterator<T> | AsyncIterator<T> = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  let next = 0;
  let exhausted = false;
  let failure: { error: unknown } | undefined;
  const taken = (step: IteratorResult<T>): { item: T; index: number } | undefined => {
    if (step.done) {
      exhausted = true;
      return undefined;
    }
    next += 1;
    return { item: step.value, index: next - 1 };
  };
  const take = (): { item: T; index: number } | undefined | Promise<{ item: T; index: number } | undefined> => {
    if (exhausted) return undefined;
    const step = iterator.next();
    // An async source's steps are awaited; a plain one's are taken at once (no turn of the event loop per item).
    return step instanceof Promise ? step.then(taken) : taken(step);
  };
  const worker = async (): Promise<void> => {
    while (!failure && !shouldStop()) {
      let item: { item: T; index: number } | undefined;
      try {
        const step = take();
        item = step instanceof Promise ? await step : step;
      } catch (error) {
        failure ??= { error };
        return;
      }
      if (!item) return;
      try {
        await work(item.item, item.index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers = Array.isArray(items) ? Math.min(concurrency, items.length) : concurrency;
  await Promise.all(Array.from({ length: Math.max(1, workers) }, worker));
  if (failure) throw failure.error;
}

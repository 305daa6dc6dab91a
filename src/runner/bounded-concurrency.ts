/**
 * Runs `work` over the items with at most `concurrency` in flight, in item order. Stops taking new
 * items once `shouldStop()` is true; the first thrown error stops new items and is rethrown after
 * the in-flight ones settle.
 */
export async function forEachWithConcurrency<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
  shouldStop: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && !failure && !shouldStop()) {
      const index = next;
      next += 1;
      try {
        await work(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (failure) throw failure.error;
}

/** One measured figure, printed by bench/run.ts. */
export type BenchFigure = { name: string; value: number; unit: string };

/**
 * Repeats `work` (which returns how many items it processed) until at least `minimumMs` have passed,
 * after one warm-up call, and returns items per second. Wall-clock time is fine here: benchmarks
 * print figures and assert nothing.
 */
export async function itemsPerSecond(name: string, unit: string, work: () => Promise<number>, minimumMs = 1500): Promise<BenchFigure> {
  await work();
  let items = 0;
  const start = performance.now();
  while (performance.now() - start < minimumMs) items += await work();
  const seconds = (performance.now() - start) / 1000;
  return { name, value: items / seconds, unit };
}

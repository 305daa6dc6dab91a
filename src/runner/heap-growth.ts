/**
 * A run's live memory is bounded (tasks and episodes stream through the store), but V8 lets a busy process's heap
 * grow to several times its live size before a full collection: a 100,000-episode run with ~70 MB live peaked near
 * 400 MB of RSS. Capping how far the heap grows past the live size after each collection keeps the peak near the
 * live size, for a little more GC time (~10-30% on replay runs). `toolforge` sets it at start; a library user who
 * runs large evaluations may call it too. Left alone when the user chose a heap flag themselves.
 */
import v8 from 'node:v8';

/** The heap may grow by this share of the live size between full collections (V8's own factor is up to 300%). */
export const defaultHeapGrowingPercent = 30;

export function limitHeapGrowth(percent: number = defaultHeapGrowingPercent): boolean {
  const chosen = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((flag) => /^--heap[-_]growing[-_]percent/.test(flag));
  if (chosen) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}

/**
 * A run's live memory is bounded (tasks and episodes stream through the store), but V8 lets a busy process's heap
 * grow to several times its live size before a full collection: a 100,000-episode run with ~70 MB live peaked near
 * 400 MB of RSS. Capping how far the heap grows past the live size after each collection keeps the peak near the
 * live size, for more GC time. The flag is V8's, so it reaches every thread of the process (a run's task-import and
 * writer threads too), and each full collection is marked on helper threads that share the two cores: measured on
 * 100,000 replayed NESTFUL samples / 20,000 fresh funcgen planner episodes, 30% took 30.2 s / 18.3 s at 251 / 239 MB
 * peak RSS, 60% 28.1 s / 16.3 s at 271 / 262 MB, 100% 25.3 s / 15.4 s at 306 / 289 MB (the goal is < 300 MB).
 * `toolforge` sets it before a command that runs or reads runs (not generate); a library user who runs large
 * evaluations may call it too. Left alone when the user chose a heap flag themselves.
 */
import v8 from 'node:v8';

/** The heap may grow by this share of the live size between full collections (V8's own factor is up to 300%). */
export const defaultHeapGrowingPercent = 60;

export function limitHeapGrowth(percent: number = defaultHeapGrowingPercent): boolean {
  const chosen = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((flag) => /^--heap[-_]growing[-_]percent/.test(flag));
  if (chosen) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}

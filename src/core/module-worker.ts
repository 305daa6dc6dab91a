/**
 * Starts a worker thread on one of our modules. From the built package (dist/*.js) the entry is plain
 * JavaScript; from the TypeScript sources (a checkout) workers do not inherit tsx's loader, so it is
 * registered inside the worker before the entry is imported.
 */
import { Worker } from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';

/** `entry` is the module's URL without its extension, relative to `base` (the caller's import.meta.url). */
export function startModuleWorker(base: string, entry: string, options: WorkerOptions): Worker {
  if (base.endsWith('.js')) {
    // A worker inherits the process's flags; --input-type (node -e '...') would stop a file entry from loading.
    const execArgv = process.execArgv.filter((flag) => !flag.startsWith('--input-type'));
    return new Worker(new URL(`${entry}.js`, base), { execArgv, ...options });
  }
  const workerUrl = new URL(`${entry}.ts`, base);
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})`
    + `.then((api) => { api.register(); return import(${JSON.stringify(workerUrl.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

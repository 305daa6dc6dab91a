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
    const url = new URL(`${entry}.js`, base);
    try {
      return new Worker(url, { execArgv, ...options });
    } catch (error) {
      // Some of the process's flags are per-process only (`node --trace-gc`, V8 flags): a worker refuses them, and
      // it needs none of them to run our code (V8's flags are the process's anyway).
      if ((error as { code?: string }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
      return new Worker(url, { ...options, execArgv: [] });
    }
  }
  const workerUrl = new URL(`${entry}.ts`, base);
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})`
    + `.then((api) => { api.register(); return import(${JSON.stringify(workerUrl.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

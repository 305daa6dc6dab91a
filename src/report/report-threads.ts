/**
 * Report builds off the viewer's event loop: each runs in a worker thread (report-build-thread.ts) over its own
 * snapshot of the database. A report of 12,000 episodes takes seconds of synchronous work (its paired comparison
 * digests every task), which on the main thread held up every other request; in a thread, an abandoned build is
 * stopped outright (the thread is terminated), not just left unanswered.
 */
import type { Worker } from 'node:worker_threads';
import { ToolForgeError } from '../core/errors.ts';
import { startModuleWorker } from '../core/module-worker.ts';
import { receiveError } from '../core/transferred-error.ts';
import type { TransferredError } from '../core/transferred-error.ts';
import { databaseUnavailable } from './followed-database.ts';
import type { BuiltReport, ReportJob } from './report-jobs.ts';

export type ReportThreadRequest = { location: string; job: ReportJob };
/** `opening`: the database did not open (gone, not a database), which the viewer answers apart from a failed build. */
export type ReportThreadMessage = { type: 'built'; report: BuiltReport } | { type: 'failed'; opening: boolean; error: TransferredError };

/**
 * Builds of different reports run side by side up to this many; more wait their turn. Each holds its whole page
 * (megabytes for 10,000 episodes) and reads the database beside the run that may be writing it.
 */
const concurrentBuilds = 2;
/** Threads kept for the next build: a new thread spends ~0.6 s loading the report modules (2 s from the TypeScript sources). */
const idleThreadsKept = 1;

export type ReportThreads = {
  /** Rejects with an AbortError, and stops the build's thread, when `signal` aborts first. */
  build(job: ReportJob, signal: AbortSignal): Promise<BuiltReport>;
  /** Threads alive, building or idle. */
  threadCount(): number;
  close(): Promise<void>;
};

type Queued = { job: ReportJob; signal: AbortSignal; resolve(report: BuiltReport): void; reject(error: unknown): void; onAbort(): void };

export function startReportThreads(location: string): ReportThreads {
  const live = new Set<Worker>();
  const idle: Worker[] = [];
  const queue: Queued[] = [];
  let building = 0;
  let closed = false;

  function startThread(): Worker {
    const worker = startModuleWorker(import.meta.url, './report-build-thread', {});
    live.add(worker);
    // A build's own listeners report its thread's failure; this one keeps an idle thread's from crashing the viewer.
    worker.on('error', () => {});
    worker.once('exit', () => {
      live.delete(worker);
      const index = idle.indexOf(worker);
      if (index >= 0) idle.splice(index, 1);
    });
    return worker;
  }

  function startNext(): void {
    while (!closed && building < concurrentBuilds && queue.length > 0) run(queue.shift() as Queued);
  }

  function run(entry: Queued): void {
    entry.signal.removeEventListener('abort', entry.onAbort);
    building += 1;
    const worker = idle.pop() ?? startThread();
    worker.ref();
    const finish = (keepThread: boolean): void => {
      building -= 1;
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      entry.signal.removeEventListener('abort', onAbort);
      if (keepThread && !closed && idle.length < idleThreadsKept) {
        // An idle thread does not keep the process alive.
        worker.unref();
        idle.push(worker);
      } else {
        void worker.terminate();
      }
      startNext();
    };
    const onMessage = (message: ReportThreadMessage): void => {
      finish(true);
      if (message.type === 'built') entry.resolve(message.report);
      else entry.reject(message.opening ? databaseUnavailable(receiveError(message.error)) : receiveError(message.error));
    };
    const onError = (error: Error): void => {
      finish(false);
      entry.reject(new ToolForgeError('internal', `the report thread failed: ${error.message}`, { cause: error }));
    };
    const onExit = (code: number): void => {
      finish(false);
      entry.reject(new ToolForgeError('internal', `the report thread ended (exit code ${code}) before its report was built`));
    };
    const onAbort = (): void => {
      finish(false);
      entry.reject(abortError());
    };
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    entry.signal.addEventListener('abort', onAbort, { once: true });
    worker.postMessage({ location, job: entry.job } satisfies ReportThreadRequest);
  }

  return {
    build(job, signal) {
      return new Promise<BuiltReport>((resolve, reject) => {
        if (closed) return reject(new ToolForgeError('internal', 'the viewer is closing: no report is built'));
        if (signal.aborted) return reject(abortError());
        const entry: Queued = {
          job, signal, resolve, reject,
          // Still queued: dropped before it starts.
          onAbort: () => {
            queue.splice(queue.indexOf(entry), 1);
            reject(abortError());
          },
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
        queue.push(entry);
        startNext();
      });
    },
    threadCount: () => live.size,
    async close() {
      closed = true;
      for (const entry of queue.splice(0)) {
        entry.signal.removeEventListener('abort', entry.onAbort);
        entry.reject(new ToolForgeError('internal', 'the viewer closed before this report was built'));
      }
      await Promise.all([...live].map((worker) => worker.terminate()));
    },
  };
}

function abortError(): DOMException {
  return new DOMException('the report build was abandoned: every client waiting for it has gone', 'AbortError');
}

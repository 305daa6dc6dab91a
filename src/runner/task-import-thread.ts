/**
 * The task import thread (see task-import.ts): streams a built-in suite's tasks through the same checks a run makes
 * and writes them to the run's store in batches, reporting each commit; stops after the current batch when asked.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openResultsStore } from '../store/results-store.ts';
import { getSuite } from '../suites/registry.ts';
import { streamGeneratedTasks } from './generate-tasks.ts';
import { selectTaskStream } from './select-tasks.ts';
import { storeTasks } from './store-tasks.ts';
import type { TaskImportJob, TaskImportMessage } from './task-import.ts';
import { transferError } from './task-import.ts';

const job = workerData as TaskImportJob;
const port = parentPort;
const stop = new AbortController();
port?.on('message', (message: { type: string }) => {
  if (message.type === 'stop') stop.abort();
});
const post = (message: TaskImportMessage): void => port?.postMessage(message);

async function importTasks(): Promise<void> {
  const store = openResultsStore(job.location);
  try {
    const suite = getSuite(job.suiteId);
    const { seed, count, params, selection = {} } = job.recipe;
    const tasks = selectTaskStream(streamGeneratedTasks(suite, { seed, count, params, signal: stop.signal }), selection)[Symbol.asyncIterator]();
    const first = await tasks.next();
    const written = first.done ? 0 : await storeTasks(store, job.runId, suite, job.mode, first.value, tasks, {
      onStored: (stored) => post({ type: 'stored', count: stored }),
      shouldStop: () => stop.signal.aborted,
    });
    if (!stop.signal.aborted) post({ type: 'done', count: written });
  } catch (error) {
    if (!stop.signal.aborted) post({ type: 'error', error: transferError(error) });
  } finally {
    store.close();
    port?.close();
  }
}

void importTasks();

/**
 * The task import thread (see task-import.ts): streams a built-in suite's tasks again through the same checks a run
 * makes, past the ones the run already stored (they must be the same), and writes the rest to the run's store in
 * batches, reporting each commit; stops after the current batch when asked.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ToolForgeError } from '../core/errors.ts';
import { openResultsStore } from '../store/results-store.ts';
import { getSuite } from '../suites/registry.ts';
import { storeTasks } from './store-tasks.ts';
import type { TaskImportJob, TaskImportMessage } from './task-import.ts';
import { importStreamStart, recipeTasksFrom } from './task-import.ts';
import { transferError } from '../core/transferred-error.ts';
import { describeSystemError } from '../core/system-error.ts';

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
    // Tasks the run stored moments ago are not made again: the stream starts at the last of them, checked against it.
    const from = importStreamStart(job);
    const tasks = recipeTasksFrom(suite, job.recipe, from, stop.signal);
    const first = await tasks.next();
    if (first.done) throw new ToolForgeError('internal', `the task stream of suite '${suite.id}' was empty when read again for run '${job.runId}'`);
    const stored = await storeTasks(store, job.runId, suite, job.mode, first.value, tasks, {
      onStored: (count) => post({ type: 'stored', count }),
      shouldStop: () => stop.signal.aborted,
      storedTaskIds: job.storedTaskIds,
      streamFrom: from,
    });
    if (stored.ended && !stop.signal.aborted) post({ type: 'done', count: stored.written });
  } catch (error) {
    // A full disk or a locked database is said as the run's own thread says it (and is known as the store's fault).
    if (!stop.signal.aborted) post({ type: 'error', error: transferError(describeSystemError(error) ?? error) });
  } finally {
    store.close();
    port?.close();
  }
}

void importTasks();

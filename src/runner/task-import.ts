/**
 * A run's tasks imported on a worker thread while its episodes run. Reading a data set, building each task and
 * writing it to the store is half the cost of a replay run (100,000 NESTFUL samples), and none of it needs the run's
 * thread: the import thread writes the tasks in batches through its own store connection and reports each commit,
 * and the run reads the stored tasks back a page at a time as they arrive. Only a built-in suite's own tasks (its
 * generator or importer with a seed, knob values and a selection, no transforms) can be remade on another thread,
 * and only a store another connection can open (a SQLite file); other runs read their task stream on the run's
 * thread, as before.
 */
import type { JsonObject } from '../core/json.ts';
import type { Mode } from '../core/mode.ts';
import { ToolForgeError } from '../core/errors.ts';
import { receiveError } from '../core/transferred-error.ts';
import type { TransferredError } from '../core/transferred-error.ts';
import { startModuleWorker } from '../core/module-worker.ts';
import type { ResultsStore } from '../store/results-store.ts';
import { getSuite } from '../suites/registry.ts';
import type { Suite } from '../suites/spec.ts';
import type { Task } from '../core/task.ts';
import { streamGeneratedTasks } from './generate-tasks.ts';
import { selectTaskStream } from './select-tasks.ts';
import { parseTransformRequest } from '../transforms/registry.ts';
import type { TaskSelection } from './select-tasks.ts';

/** How a built-in suite makes the run's tasks: what `streamGeneratedTasks` + `selectTaskStream` would be given. */
export type TaskRecipe = {
  seed: number;
  count?: number;
  params: JsonObject;
  selection?: TaskSelection;
  /**
   * Transforms every task is derived with, as `--transform` takes them, in order: only those that need nothing but the
   * seed (not perturb:paraphrase, which asks a phrasing model), so the same recipe makes the same tasks on any thread.
   */
  transforms?: readonly string[];
};

/** What the import thread is started with (structured-cloned). */
export type TaskImportJob = {
  location: string; runId: string; suiteId: string; mode?: Mode; recipe: TaskRecipe;
  /** The tasks the run stored before it handed the stream on, in order: the thread checks them and stores the rest. */
  storedTaskIds: readonly string[];
  /**
   * The stored tasks were made from the recipe moments ago, by the run that starts this thread: the stream starts at
   * the last of them (checked against it) instead of making them all again. A resumed run's thread reads and checks
   * every stored task, since the data may have changed since the run stopped.
   */
  justStored?: boolean;
};


export type TaskImportMessage =
  | { type: 'stored'; count: number }
  | { type: 'done'; count: number }
  | { type: 'error'; error: TransferredError };

/** The task stream a recipe makes: the suite's generator or importer, then the selection. */
export function recipeTasks(suite: Suite, recipe: TaskRecipe, signal?: AbortSignal): AsyncIterator<Task> {
  return recipeTasksFrom(suite, recipe, 0, signal);
}

/**
 * Where the import thread starts the recipe's stream: at the last task the run stored moments ago (`justStored`), when
 * the selection keeps every task it reads (no id patterns: task i of the stream is stored task i); else at the start.
 */
export function importStreamStart(job: TaskImportJob): number {
  const patterns = job.recipe.selection?.taskIds ?? [];
  return job.justStored === true && patterns.length === 0 ? Math.max(0, job.storedTaskIds.length - 1) : 0;
}

/** The recipe's task stream from its task `from`, the earlier ones not made (see importStreamStart). */
export function recipeTasksFrom(suite: Suite, recipe: TaskRecipe, from: number, signal?: AbortSignal): AsyncIterator<Task> {
  const { seed, count, params, selection = {} } = recipe;
  const transforms = (recipe.transforms ?? []).map(parseTransformRequest);
  if (from > 0 && selection.taskIds !== undefined && selection.taskIds.length > 0) {
    throw new ToolForgeError('internal', 'a task stream selected by id patterns cannot start past its first task');
  }
  const limit = selection.limit === undefined ? {} : { limit: Math.max(0, selection.limit - from) };
  return selectTaskStream(streamGeneratedTasks(suite, { seed, count, params, from, ...(transforms.length > 0 ? { transforms } : {}), ...(signal ? { signal } : {}) }), { ...selection, ...limit })[Symbol.asyncIterator]();
}

export type TaskImport = {
  /** Tasks committed so far: ordinals 0 .. stored - 1 can be read from the store. */
  stored(): number;
  /** The task count once the import has ended, else undefined. */
  finished(): number | undefined;
  /** Resolves when more tasks are stored or the import ends; rejects with the import's error. */
  changed(): Promise<void>;
  /** Resolves with the task count when every task is stored; rejects with the import's error. */
  readonly result: Promise<number>;
  /** Stops the import after its current batch and waits for the thread to close its store. */
  stop(): Promise<void>;
};

/** Whether `suite`'s tasks can be imported on a thread for this store (see the module comment). */
export function canImportOnThread(store: ResultsStore, suite: Suite): boolean {
  if (store.dialect !== 'sqlite' || store.path === ':memory:' || store.path === '') return false;
  try {
    return getSuite(suite.id) === suite;
  } catch {
    return false;
  }
}


/**
 * The import thread's young generation: its garbage is short-lived (a sample's text, a batch's rows). V8's default
 * lets the second heap add ~40 MB to a 100,000-sample run's peak RSS; 8 MB cost ~5% more time than 16 in collections.
 */
const importYoungGenerationMb = 16;

export function startTaskImport(job: TaskImportJob): TaskImport {
  const worker = startModuleWorker(import.meta.url, './task-import-thread', { workerData: job, resourceLimits: { maxYoungGenerationSizeMb: importYoungGenerationMb } });
  let stored = job.storedTaskIds.length;
  let count: number | undefined;
  let failure: Error | undefined;
  let waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const wake = (): void => {
    const woken = waiters;
    waiters = [];
    for (const waiter of woken) {
      if (failure) waiter.reject(failure);
      else waiter.resolve();
    }
  };
  let settle: { resolve: (count: number) => void; reject: (error: Error) => void } | undefined;
  const result = new Promise<number>((resolve, reject) => { settle = { resolve, reject }; });
  // The run may end (cancelled, failed) without awaiting the import: its failure then needs no handler.
  result.catch(() => {});
  const fail = (error: Error): void => {
    if (count !== undefined || failure) return;
    failure = error;
    settle?.reject(error);
    wake();
  };
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('message', (message: TaskImportMessage) => {
    if (message.type === 'stored') {
      stored = message.count;
      wake();
    } else if (message.type === 'done') {
      stored = message.count;
      count = message.count;
      settle?.resolve(message.count);
      wake();
    } else {
      fail(receiveError(message.error));
    }
  });
  worker.on('error', (error) => fail(error));
  worker.once('exit', (code) => fail(new ToolForgeError('internal', `the task import thread stopped (exit code ${code}) before its tasks were stored`)));
  return {
    stored: () => stored,
    finished: () => count,
    changed: () => (failure ? Promise.reject(failure) : count !== undefined ? Promise.resolve() : new Promise((resolve, reject) => waiters.push({ resolve, reject }))),
    result,
    async stop() {
      worker.postMessage({ type: 'stop' });
      await exited;
    },
  };
}

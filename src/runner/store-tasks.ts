/**
 * A run's tasks on their way into the store: each checked (this suite at this version, a sound ground truth, the
 * run's mode, an id not seen before) and written in batches as the stream is read, never held whole.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { checkOnce, rememberPassed } from '../core/checked-once.ts';
import { ConfigError } from '../core/errors.ts';
import type { Mode } from '../core/mode.ts';
import type { Task } from '../core/task.ts';
import { taskSchema } from '../core/task.ts';
import { describeIssue } from '../store/run-jsonl.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { TaskRow } from '../store/task-row.ts';
import { taskRow } from '../store/task-row.ts';
import type { Suite } from '../suites/spec.ts';
import { formatFieldPath } from '../core/field-path.ts';
import { damagedDatabaseFix } from '../store/stored-json.ts';

/**
 * Tasks written to the store per transaction while a run's tasks stream in, each serialised as it joins the batch
 * (taskRow): a batch of built tasks held until its commit lived through young-generation collections (a NESTFUL task
 * is ~50 KB of objects); a commit is cheap in WAL mode.
 */
const taskBatchSize = 64;

/** What storeTasks wrote: how many, and whether the stream ended (false when it handed off or was told to stop). */
export type StoredTasks = { written: number; ended: boolean };

export type StoreTasksOptions = {
  /** Hears the count after each batch's commit (the import thread reports it to the run). */
  onStored?: (written: number) => void;
  /** Checked between batches: true ends the stream early. */
  shouldStop?: () => boolean;
  /** Stop once this many are stored and more follow: the run hands the rest to the import thread. */
  handOffAfter?: number;
  /**
   * The ids of the tasks already stored for the run, in order (the import thread continuing a run): the stream's
   * first tasks are checked against them (duplicates included) and not stored again.
   */
  storedTaskIds?: readonly string[];
  /** The index in `storedTaskIds` the stream starts at: the ones before it are taken as read (default 0). */
  streamFrom?: number;
  /** The check of the tasks' knobs, when the caller has already checked some (default: a new createTaskParamsCheck). */
  checkParams?: (task: Task) => void;
};

/**
 * Checks each task as it streams past and writes them in batches; returns how many were written (in all, with
 * `storedTaskIds`) and whether the stream ended.
 */
export async function storeTasks(
  store: ResultsStore, runId: string, suite: Suite, mode: Mode | undefined, first: Task, rest: AsyncIterator<Task>, options: StoreTasksOptions = {},
): Promise<StoredTasks> {
  const already = options.storedTaskIds ?? [];
  const streamFrom = options.streamFrom ?? 0;
  // Ids the stream starts past still count for the duplicate check.
  const seen = new Set<string>(already.slice(0, streamFrom));
  const check = createStreamTaskCheck(suite, mode, options.checkParams ?? createTaskParamsCheck(suite), seen);
  let batch: TaskRow[] = [];
  let read = streamFrom;
  let written = already.length;
  const flush = (): void => {
    if (batch.length === 0) return;
    store.appendTasks(runId, batch, written);
    written += batch.length;
    batch = [];
    options.onStored?.(written);
  };
  for (let step: IteratorResult<Task> = { done: false, value: first }; !step.done; step = await rest.next()) {
    const task = step.value;
    check(task, read);
    read += 1;
    if (read <= already.length) {
      if (task.id !== already[read - 1]) throw changedWhileRead(read - 1, task.id, already[read - 1]);
      continue;
    }
    if (options.handOffAfter !== undefined && written >= options.handOffAfter) return { written, ended: false };
    batch.push(taskRow(task));
    if (batch.length === taskBatchSize) {
      flush();
      // A stream that never waits on I/O would otherwise hold the event loop (Ctrl-C, timers) until its end.
      await yieldToEventLoop();
      if (options.shouldStop?.()) return { written, ended: false };
    }
  }
  if (read < already.length) throw changedWhileRead(read, '(none: the stream ended)', already[read]);
  flush();
  return { written, ended: true };
}

/**
 * The check of each task of a run's stream as it comes (`ordinal`: its place in the stream): the Task shape, this
 * suite at this version, a sound ground truth, the run's mode, an id not seen before (in `seen`), and its knobs.
 */
export function createStreamTaskCheck(
  suite: Suite, mode: Mode | undefined, checkParams: (task: Task) => void, seen = new Set<string>(),
): (task: Task, ordinal: number) => void {
  return (task, ordinal) => {
    checkTaskShape(task, ordinal);
    checkTask(suite, task, mode, seen);
    checkParams(task);
  };
}

/**
 * `suite.checkTaskParams` once per distinct knob values (a run's tasks nearly always share them). A task that fails
 * came with its knobs (a tasks file, or tasks a library caller made): the fix says where they are set.
 */
export function createTaskParamsCheck(suite: Suite): (task: Task) => void {
  const check = suite.checkTaskParams;
  if (!check) return () => {};
  let checked: string | undefined;
  return (task) => {
    const key = JSON.stringify(task.params);
    if (key === checked) return;
    try {
      check(task.params);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new ConfigError(error.code, `task '${task.id}': ${error.problem}`, {
        fix: `${error.fix ?? 'change the knob'}. Knobs are stored in each task: set it where the tasks are made (toolforge generate ${suite.id} --set ...), or in each task's params in the tasks file`,
        cause: error,
      });
    }
    checked = key;
  };
}

function changedWhileRead(ordinal: number, now: string, stored: string): ConfigError {
  return new ConfigError('input.invalid', `the run's tasks changed while it read them: task ${ordinal} is now '${now}', it was '${stored}' when first read`, {
    fix: 'leave the data file unchanged while a run reads it, and start the run again',
  });
}

/**
 * A task handed to a run has the Task shape. Tasks a library caller built by hand are checked in full; tasks made by
 * a suite or read from a file were checked when made or read, so this costs a lookup (checked-once.ts).
 */
export function checkTaskShape(task: unknown, ordinal: number): asserts task is Task {
  const error = checkOnce(taskSchema, task);
  if (!error) return;
  const id = typeof task === 'object' && task !== null && typeof (task as { id?: unknown }).id === 'string' ? ` '${(task as { id: string }).id}'` : '';
  throw new ConfigError('input.invalid', `task ${ordinal}${id} is not a ToolForge task: ${describeIssue(error)}`, {
    fix: 'pass tasks as generateTasks makes them or readTasksFile reads them (toolforge generate writes them), unchanged',
  });
}

/** One task of a run: this suite at this version, a sound ground truth, the run's mode, an id not seen before. */
export function checkTask(suite: Suite, task: Task, mode: Mode | undefined, seen: Set<string>): void {
  if (task.suite.id !== suite.id) {
    throw new ConfigError('input.invalid', `task '${task.id}' belongs to suite '${task.suite.id}', not '${suite.id}'`, {
      fix: `run it with 'toolforge run ${task.suite.id}', or pass a tasks file generated for ${suite.id}`,
    });
  }
  if (task.suite.version !== suite.version) {
    throw new ConfigError('input.invalid', `task '${task.id}' was generated by ${suite.id} version ${task.suite.version}, but this suite is version ${suite.version}`, {
      fix: `regenerate the tasks with 'toolforge generate ${suite.id}' (same --seed and --set values)`,
    });
  }
  checkExpected(suite, task);
  if (mode !== undefined && !task.modes.includes(mode)) {
    throw new ConfigError('config.unsupported-mode', `task '${task.id}' does not support mode '${mode}' (it supports ${task.modes.join(', ')})`, {
      fix: `use --mode ${task.modes.join('|')}`,
    });
  }
  if (seen.has(task.id)) {
    throw new ConfigError('input.invalid', `task id '${task.id}' appears twice`, { fix: 'remove the duplicate task from the tasks file' });
  }
  seen.add(task.id);
}

/**
 * A task read back from a run's store passed checkExpected when it entered the run (every way in checks it: a run's
 * tasks, an import, a resume's tasks file), so its suite's readers need not check its ground truth again in each
 * episode: a zod pass over a funcgen graph allocated ~27 KB per episode, most of the garbage of a run at 256 in flight.
 */
export function trustStoredTask(suite: Suite, task: Task): Task {
  if (typeof task.expected === 'object' && task.expected !== null) rememberPassed(suite.expectedSchema, task.expected);
  return task;
}

/**
 * The check of a run's tasks read back from its store by a process that did not store them (a resume, a rescore): the
 * database may have been edited since, so each is checked once as a task entering the run is, in order; a task that
 * fails is a damaged row of the run, named by its place.
 */
export function createStoredTaskCheck(suite: Suite, run: { id: string; mode: Mode | null }): (task: Task, ordinal: number) => Task {
  const seen = new Set<string>();
  const checkParams = createTaskParamsCheck(suite);
  return (task, ordinal) => {
    try {
      checkTaskShape(task, ordinal);
      checkTask(suite, task, run.mode ?? undefined, seen);
      checkParams(task);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new ConfigError('store.invalid', `run '${run.id}': its stored task ${ordinal} is not one it can run: ${error.problem}`, { fix: damagedDatabaseFix, cause: error });
    }
    return task;
  };
}

/** The task's ground truth has the suite's shape: checked once, before anything runs, the same for every suite. */
export function checkExpected(suite: Suite, task: Task): void {
  const fix = `regenerate the task with 'toolforge generate ${suite.id}' (this ToolForge's ${suite.id} version ${suite.version})`;
  const error = checkOnce(suite.expectedSchema, task.expected);
  if (error) {
    const issue = error.issues[0];
    const field = formatFieldPath(issue?.path ?? [], 'expected');
    throw new ConfigError('input.invalid', `task '${task.id}': ${field}: ${issue?.message ?? 'invalid'}`, { fix });
  }
  const problem = suite.taskProblem?.(task);
  if (problem !== undefined) throw new ConfigError('input.invalid', `task '${task.id}': ${problem}`, { fix });
}

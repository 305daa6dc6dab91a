/**
 * A run of a built-in suite's tasks as they are made. A fresh run's tasks could be stored first and each read back for
 * its episodes, but reading back is a JSON parse of every task (a funcgen task is ~17 KB, with its parameters as fresh
 * random keys): the largest cost of a built-in model's episode, for the very objects the generator had just made. Here
 * the run's thread makes each task and runs its episodes on the object it made, and the store (the episode writer
 * thread when there is one) writes the tasks a batch at a time, each batch before any episode of its tasks. A killed
 * run is left as one stopped while storing its tasks: what is stored is a prefix of the stream, and its resume makes
 * the rest again from the recipe.
 */
import type { Task } from '../core/task.ts';
import type { TaskRow } from '../store/task-row.ts';
import { taskRow } from '../store/task-row.ts';

/** The task stream of a run as made (its first task already read), with the check each task passes as it comes. */
export type MadeTasks = {
  first: Task;
  rest: AsyncIterator<Task>;
  /** The check storeTasks makes of each task of a stream (throws a ConfigError naming the task). */
  check: (task: Task, ordinal: number) => void;
  /** How many tasks the stream gives, when its recipe says (a count, no id patterns): the run's planned size. */
  expectedCount?: number;
  /** At most how many tasks it gives, when its recipe says (a count, or a limit): whether a writer thread is worth it. */
  atMost?: number;
};

/** Where the tasks are stored: the run's commits (group commit or the episode writer thread), in order. */
export type MadeTaskStore = { addTasks(runId: string, rows: TaskRow[], firstOrdinal: number, complete: boolean): void };

/**
 * Tasks per stored batch: each waits for its batch's commit to be handed on before its episodes run, so the batch's
 * objects live on into young-generation collections; small batches keep few of them alive at once.
 */
const madeBatchSize = 16;

/**
 * The run's (task, trial) pairs in stream order, each batch of tasks handed to the store before any of its episodes is
 * yielded. `onAllMade` hears the task count once the stream has ended and its last batch is handed on (with it marked
 * as the last, so the run is marked as having all its tasks once they are stored).
 */
export async function* madeTaskPlan(
  made: MadeTasks,
  options: { runId: string; trials: number; store: MadeTaskStore; shouldStop: () => boolean; onAllMade: (count: number) => void },
): AsyncGenerator<{ task: Task; trial: number }> {
  let batch: Task[] = [];
  let stored = 0;
  const handOn = (complete: boolean): Task[] => {
    const tasks = batch;
    batch = [];
    options.store.addTasks(options.runId, tasks.map((task) => taskRow(task)), stored, complete);
    stored += tasks.length;
    return tasks;
  };
  let ordinal = 0;
  for (let step: IteratorResult<Task> = { done: false, value: made.first }; !step.done; step = await made.rest.next()) {
    made.check(step.value, ordinal);
    ordinal += 1;
    batch.push(step.value);
    if (batch.length === madeBatchSize) {
      for (const task of handOn(false)) for (let trial = 0; trial < options.trials; trial += 1) yield { task, trial };
    }
    if (options.shouldStop()) {
      await made.rest.return?.();
      return;
    }
  }
  const last = handOn(true);
  options.onAllMade(stored);
  for (const task of last) for (let trial = 0; trial < options.trials; trial += 1) yield { task, trial };
}

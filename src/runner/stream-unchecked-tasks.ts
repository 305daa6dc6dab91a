/**
 * A suite's tasks checked for shape alone (no oracle, no transform): `toolforge generate --no-validate`, and a data
 * set's tasks taken as they are. Kept apart from generate-tasks.ts so a generation thread that makes unchecked tasks
 * starts without loading the oracle, sandbox and model code it never uses.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { ConfigError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import type { GenerateTasksRequest, Suite } from '../suites/spec.ts';
import { checkGeneratedTask } from './generated-task-check.ts';

/**
 * Tasks only checked for shape are handed on one at a time, with a turn of the event loop every this many. A batch of
 * 64 large tasks outlives V8's young-generation collections and is copied and promoted by each: measured on funcgen
 * (20 functions a task), generation took 145 µs a task in batches of 64 against 96 µs one at a time.
 */
const uncheckedTasksPerTurn = 64;

/** The suite's task stream from `from` on: its `streamTasks` when it has one, else its `generate`, cut. */
export async function suiteTaskStream(suite: Suite, request: GenerateTasksRequest, from: number): Promise<Iterable<Task> | AsyncIterable<Task>> {
  return suite.streamTasks ? suite.streamTasks(request, { from }) : (await suite.generate(request)).slice(from);
}

export async function* streamUncheckedTasks(suite: Suite, request: GenerateTasksRequest, from: number): AsyncGenerator<Task> {
  const seen = new Set<string>();
  let generated = from;
  try {
    for await (const task of await suiteTaskStream(suite, request, from)) {
      generated += 1;
      checkGeneratedTask(suite, task, seen);
      yield task;
      if (request.signal?.aborted) return;
      // Timers, Ctrl-C and finalizers run between tasks that never wait on I/O.
      if (generated % uncheckedTasksPerTurn === 0) await yieldToEventLoop();
    }
  } finally {
    // The consumer may hold this generator for the whole run: the ids it checked need not live that long.
    seen.clear();
  }
  if (request.count !== undefined && generated < request.count && !request.signal?.aborted) throw fewerTasksThanCount(suite, request, generated);
}

/** The suite made fewer tasks than `--count` asked for (a data set of fewer samples, say). */
export function fewerTasksThanCount(suite: Suite, request: GenerateTasksRequest, generated: number): ConfigError {
  return new ConfigError('config.invalid', `suite '${suite.id}' has only ${generated} tasks for these settings, fewer than --count ${request.count}`, {
    // No task at all: a smaller --count cannot help (0 is refused); the data or the settings must change.
    fix: generated === 0
      ? `these settings give no task: ${suite.importsTasks?.(request.params) === true ? 'pass a data file that holds samples (--set data=<file>; toolforge data list shows the published sets)' : 'change the --set values'}`
      : `pass --count ${generated} or less (or leave --count out for all of them)`,
  });
}

/**
 * The check every task a suite makes passes before it is handed on: the Task shape, this suite's stamp, an id not
 * seen before. Its own module, so a generation thread loads it without the oracle pipeline of generate-tasks.ts.
 */
import { checkOnce } from '../core/checked-once.ts';
import { describeIssue } from '../core/describe-issue.ts';
import { ToolForgeError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import { taskSchema } from '../core/task.ts';
import type { Suite } from '../suites/spec.ts';

export function checkGeneratedTask(suite: Suite, task: Task, seen: Set<string>): void {
  // Remembered: the run's own check of each task it is handed (storeTasks) then costs a lookup.
  const error = checkOnce(taskSchema, task);
  if (error) {
    throw new ToolForgeError('suite.invalid-task', `suite '${suite.id}' generated an invalid task '${String((task as { id?: unknown }).id)}': ${describeIssue(error)}`, {
      fix: `this is a bug in suite ${suite.id}; please report it with the seed and --set values`,
    });
  }
  if (task.suite.id !== suite.id || task.suite.version !== suite.version || seen.has(task.id)) {
    throw new ToolForgeError('suite.invalid-task', `suite '${suite.id}' generated task '${task.id}' with a wrong suite stamp (${task.suite.id} ${task.suite.version}) or a duplicate id`, {
      fix: `this is a bug in suite ${suite.id}; please report it with the seed and --set values`,
    });
  }
  seen.add(task.id);
}

/**
 * The request inside a task: `task.query` appears verbatim in the prompt (or the starter code), the
 * rest is the suite's scaffolding. A perturbation rewrites the request and nothing else.
 */
import { ToolForgeError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';

export function replaceQuery(task: Task, query: string): Task {
  const old = task.query;
  const fix = `suite ${task.suite.id} must set task.query to the request as it appears in the prompt`;
  if (old === undefined || old === '') {
    throw new ToolForgeError('suite.invalid-task', `task '${task.id}' has no query to rewrite`, { fix });
  }
  const found = task.prompt.some((message) => message.content.includes(old)) || (task.starter?.includes(old) ?? false);
  if (!found) throw new ToolForgeError('suite.invalid-task', `task '${task.id}': its query does not appear in its prompt`, { fix });
  return {
    ...task,
    query,
    prompt: task.prompt.map((message) => ({ ...message, content: message.content.split(old).join(query) })),
    ...(task.starter !== undefined ? { starter: task.starter.split(old).join(query) } : {}),
  };
}

import { createHash } from 'node:crypto';
import { canonicalJson } from './json.ts';
import type { Task } from './task.ts';

/** sha256 of a task's canonical JSON: two tasks with the same digest are the same task, byte for byte. */
export function taskDigest(task: Task): string {
  return createHash('sha256').update(canonicalJson(task)).digest('hex');
}

/**
 * Which task a task is for pairing: a derived task pairs with the task it was made from (its
 * origin's id and digest); any other task with itself.
 */
export function taskPairKey(task: Task): string {
  return task.origin ? `${task.origin.taskId}#${task.origin.taskDigest}` : `${task.id}#${taskDigest(task)}`;
}

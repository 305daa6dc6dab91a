import type { Task } from '../core/task.ts';

/**
 * A task as a store writes it: its JSON and the facts stored beside it (the phrasing and first mode a report reads
 * without parsing the task). A run's tasks are made into rows as they join a batch, so a batch waiting for its commit
 * holds one flat string per task rather than each task's thousand objects, which lived through young-generation
 * collections and were copied by each (a 100,000-sample NESTFUL replay took ~9% longer).
 */
export type TaskRow = { id: string; json: string; phrasing: string | null; firstMode: string | null };

export function taskRow(task: Task): TaskRow {
  const phrasing = task.stats?.phrasing;
  return { id: task.id, json: JSON.stringify(task), phrasing: typeof phrasing === 'string' ? phrasing : null, firstMode: task.modes?.[0] ?? null };
}

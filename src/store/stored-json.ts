/**
 * JSON columns read back from a results database. A row damaged outside ToolForge (edited by hand, a disk fault, a
 * copy cut short) is a store error that names the run, the row and the column, with what to do, not a crash.
 */
import { ConfigError, errorMessage } from '../core/errors.ts';

/** What to do about a damaged row, the same for every stored column. */
export const damagedDatabaseFix = 'the database was edited or damaged: restore it from a backup or an export (toolforge import <file>), or run the tasks again in a new run';

/** Which row a column belongs to: a run, a task of it (by ordinal or id), or an episode (task id and trial). */
export type StoredRow = { run_id: string; task_id?: string; trial?: number; ordinal?: number | string };

export function parseStoredJson<T>(text: string, column: string, row: StoredRow): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw damagedRow(row, column, errorMessage(error));
  }
}

function damagedRow(row: StoredRow, column: string, reason: string): ConfigError {
  const task = row.task_id !== undefined ? ` task '${row.task_id}'` : row.ordinal !== undefined ? ` task ${Number(row.ordinal)}` : '';
  const trial = row.trial !== undefined ? ` trial ${row.trial}` : '';
  return new ConfigError('store.invalid', `run '${row.run_id}'${task}${trial}: its stored ${column} is damaged (${reason})`, {
    fix: damagedDatabaseFix,
  });
}

/** A run_tasks row as read back: its ordinal, the task id it is stored under, and the task's JSON. */
export type StoredTaskRow = { ordinal: number | string; task_id: string; task: string };

/**
 * A stored task, which must be a task object stored under its own id: a row edited to null, an array or another id
 * (a duplicate of the next task's) would be run, scored and exported under an id the run does not list.
 */
export function parseStoredTask<T extends { id: string }>(runId: string, row: StoredTaskRow): T {
  const where = { run_id: runId, ordinal: row.ordinal };
  const task = parseStoredJson<unknown>(row.task, 'task', where);
  if (typeof task !== 'object' || task === null || Array.isArray(task)) {
    throw damagedRow(where, 'task', `it is ${task === null ? 'null' : Array.isArray(task) ? 'an array' : `a ${typeof task}`}, not a task object`);
  }
  const id = (task as { id?: unknown }).id;
  if (id !== row.task_id) {
    throw damagedRow(where, 'task', `its id is ${JSON.stringify(id) ?? 'missing'}, but it is stored as task '${row.task_id}'`);
  }
  return task as T;
}


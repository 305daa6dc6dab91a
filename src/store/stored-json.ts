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

import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

/** The newest run's id and how many of its tasks are stored, once some are and not all (a run caught storing them). */
export function partlyStoredRun(database: string): { id: string; stored: number } | undefined {
  if (!existsSync(database)) return undefined;
  try {
    const connection = new Database(database, { readonly: true });
    try {
      const run = connection.prepare('SELECT id, tasks_complete AS complete FROM runs ORDER BY rowid DESC LIMIT 1').get() as { id: string; complete: number } | undefined;
      if (!run || run.complete === 1) return undefined;
      const { stored } = connection.prepare('SELECT count(*) AS stored FROM run_tasks WHERE run_id = ?').get(run.id) as { stored: number };
      return stored > 0 ? { id: run.id, stored } : undefined;
    } finally {
      connection.close();
    }
  } catch {
    // Created or migrated this instant by the run's process.
    return undefined;
  }
}

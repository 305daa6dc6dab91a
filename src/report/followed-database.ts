/**
 * The viewer's results database, followed by path: a file replaced under the running viewer (`cp other.db
 * results.db`, `mv new.db results.db`) is opened again, and a file gone is an error every page answers with, never the
 * old file's runs (an open connection keeps reading the replaced file, or its cached pages mixed with the new one's).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ToolForgeError } from '../core/errors.ts';
import type { ErrorCode } from '../core/errors.ts';
import { isPostgresLocation, openResultsStore } from '../store/results-store.ts';
import type { ResultsStore } from '../store/results-store.ts';

/** The database cannot be read now (gone, or replaced by a file that is not one): the viewer answers 503 until it can. */
export class DatabaseUnavailableError extends ToolForgeError {}

/** `error` (from opening the database) as a DatabaseUnavailableError, its code and fix kept. */
export function databaseUnavailable(error: unknown): DatabaseUnavailableError {
  if (error instanceof DatabaseUnavailableError) return error;
  const code: ErrorCode = error instanceof ToolForgeError ? error.code : 'store.invalid';
  const problem = error instanceof ToolForgeError ? error.problem : error instanceof Error ? error.message : String(error);
  return new DatabaseUnavailableError(code, problem, { ...(error instanceof ToolForgeError && error.fix !== undefined ? { fix: error.fix } : {}), cause: error });
}

export type FollowedDatabase = {
  /**
   * The store over the file at the path now, opened again when that is not the file open (`generation` counts the
   * opens). Throws DatabaseUnavailableError when there is no file, or it does not open.
   */
  current(): { store: ResultsStore; generation: number };
  close(): void;
};

/** Opens the database read-only (throwing as openResultsStore does), then follows its path. */
export function followDatabase(location: string): FollowedDatabase {
  // A PostgreSQL database has no file to be replaced.
  const file = isPostgresLocation(location) || location === ':memory:' ? undefined : resolve(location);
  // Taken before each open: a change between the stat and the open is seen at the next request, never missed.
  let identity = file === undefined ? undefined : fileIdentity(file);
  let store: ResultsStore | undefined = openResultsStore(location, { readOnly: true });
  let generation = 0;
  return {
    current() {
      if (file === undefined) return { store: store as ResultsStore, generation };
      const now = fileIdentity(file);
      if (store !== undefined && now === identity) return { store, generation };
      store?.close();
      store = undefined;
      identity = now;
      if (now === undefined) {
        throw new DatabaseUnavailableError('input.unreadable', `the results database ${file} is no longer there: it was moved or deleted while the viewer ran`, {
          fix: `put a results database back at ${file} (the viewer reads it at the next request), or stop the viewer and start it with --db <file>`,
        });
      }
      try {
        store = openResultsStore(location, { readOnly: true });
      } catch (error) {
        throw databaseUnavailable(error);
      }
      generation += 1;
      return { store, generation };
    },
    close() {
      store?.close();
      store = undefined;
    },
  };
}

/**
 * Which file is at the path, and which version of it: another inode (mv, or delete and re-create) or another size or
 * modification (cp over it in place keeps the inode) means another database. One stat per request; a writer's
 * checkpoint into the file also counts, which costs a reopen, not a wrong page.
 */
function fileIdentity(file: string): string | undefined {
  const stats = statSync(file, { bigint: true, throwIfNoEntry: false });
  // ctime as well: `cp -p` restores the old modification time, and a copy can be the same size.
  return stats === undefined ? undefined : [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(':');
}

/**
 * The response cache's storage: its own SQLite file (by default `response-cache.db` beside the results database),
 * so deleting it never touches results and results files stay small.
 */
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError, errorMessage } from '../core/errors.ts';
import { prepareFileFolder } from '../core/prepare-file-folder.ts';
import { defaultResultsPath, isPostgresLocation } from './results-store.ts';

export type ResponseCacheStore = {
  readonly path: string;
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  count(): number;
  close(): void;
};

/** The default cache file for a results database. */
export function responseCachePathFor(resultsPath: string): string {
  // A PostgreSQL results database has no folder: the cache stays a local file in the default folder.
  if (isPostgresLocation(resultsPath)) return resolve(dirname(defaultResultsPath), 'response-cache.db');
  return join(dirname(resolve(resultsPath)), 'response-cache.db');
}

export function openResponseCache(path: string): ResponseCacheStore {
  let database: Database.Database;
  const folderProblem = prepareFileFolder(resolve(path));
  if (folderProblem !== undefined) {
    throw new ConfigError('store.unwritable', `cannot create the response cache ${path}: ${folderProblem.reason}`, {
      fix: 'pass --cache-db <path> in a folder you can write to (the default is response-cache.db beside the results database)',
      cause: folderProblem.cause,
    });
  }
  try {
    database = new Database(path);
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 5000');
    database.exec('CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL)');
  } catch (error) {
    throw new ConfigError('store.invalid', `cannot use ${path} as a response cache: ${errorMessage(error)}`, {
      fix: `delete ${path} (it only holds cached model responses), or pass --cache-db <other path>`,
      cause: error,
    });
  }
  const select = database.prepare('SELECT value FROM responses WHERE key = ?');
  const insert = database.prepare('INSERT OR REPLACE INTO responses (key, value, created_at) VALUES (?, ?, ?)');
  const count = database.prepare('SELECT COUNT(*) AS count FROM responses');
  return {
    path,
    get: (key) => (select.get(key) as { value: string } | undefined)?.value,
    set: (key, value) => { insert.run(key, value, new Date().toISOString()); },
    count: () => (count.get() as { count: number }).count,
    close: () => database.close(),
  };
}

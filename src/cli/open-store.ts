import { existsSync, rmSync } from 'node:fs';
import type { ResultsStore } from '../store/index.ts';
import { openResultsStore } from '../store/index.ts';
import { isPostgresLocation } from '../store/results-store.ts';

/**
 * Commands that only read results open the file read-only: they never create an empty database where the user
 * mistyped a path, and they work on a file the user may not write.
 */
export function openExistingStore(path: string): ResultsStore {
  return openResultsStore(path, { readOnly: true });
}

export async function withStore<T>(store: ResultsStore, work: (store: ResultsStore) => Promise<T> | T): Promise<T> {
  try {
    return await work(store);
  } finally {
    store.close();
  }
}

/** Commands that add to an existing database (rescore) must not create one where the user mistyped a path. */
export function openExistingStoreForWriting(path: string): ResultsStore {
  return openResultsStore(path, { mustExist: true });
}

/**
 * The database a command records runs in (run, sweep, serve). A SQLite file this command created that still holds no
 * run when it is closed (the command stopped before its run started: a bad knob value, a missing data or tasks file)
 * is removed with its side files, so a typo leaves no empty database behind; a file that existed is never touched.
 */
export function openStoreForRuns(path: string): ResultsStore {
  const created = !isPostgresLocation(path) && path !== ':memory:' && path !== '' && !existsSync(path);
  const store = openResultsStore(path);
  if (!created) return store;
  const close = (): void => {
    let empty = false;
    try {
      empty = store.listRuns({ limit: 1 }).length === 0;
    } finally {
      store.close();
    }
    if (empty) for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
  };
  return { ...store, close };
}

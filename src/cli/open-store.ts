import type { ResultsStore } from '../store/index.ts';
import { openResultsStore } from '../store/index.ts';

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

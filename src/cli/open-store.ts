import { existsSync } from 'node:fs';
import { ConfigError } from '../core/errors.ts';
import type { ResultsStore } from '../store/index.ts';
import { openResultsStore } from '../store/index.ts';

/** Commands that only read results must not create an empty database where the user mistyped a path. */
export function openExistingStore(path: string): ResultsStore {
  if (!existsSync(path)) {
    throw new ConfigError('input.unreadable', `no results database at ${path}`, {
      fix: "run 'toolforge run <suite> --model <ref>' first, or pass --db <file> to read another database",
    });
  }
  return openResultsStore(path);
}

export async function withStore<T>(store: ResultsStore, work: (store: ResultsStore) => Promise<T> | T): Promise<T> {
  try {
    return await work(store);
  } finally {
    store.close();
  }
}

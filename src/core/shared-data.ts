import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (the folder holding package.json). */
export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Where the public data sets live: `$TOOLFORGE_SHARED_DATA`, else `../shared/data` beside the
 * repository. Data is read at run time, never copied into the repository.
 */
export function sharedDataPath(...parts: string[]): string {
  const root = process.env.TOOLFORGE_SHARED_DATA ?? join(repositoryRoot, '..', 'shared', 'data');
  return join(root, ...parts);
}

export function hasSharedData(...parts: string[]): boolean {
  return existsSync(sharedDataPath(...parts));
}

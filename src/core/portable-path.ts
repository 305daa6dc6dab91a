/**
 * How tasks name files (an OpenAPI spec, the data file they came from): `shared:<data set>/<path>` for files inside a
 * data folder (`data-location.ts`: `$TOOLFORGE_DATA`, `../shared/data` or the cache), so that tasks are byte-identical
 * on every machine wherever the data lives; otherwise the absolute path the user gave.
 */
import { relative, resolve, sep } from 'node:path';
import { dataRoots, datasetPath } from './data-location.ts';

const sharedPrefix = 'shared:';

export function toPortablePath(path: string): string {
  const absolute = resolve(path);
  for (const root of dataRoots()) {
    const inside = relative(root.path, absolute);
    if (inside !== '' && !inside.startsWith('..') && !inside.startsWith(sep)) return `${sharedPrefix}${inside.split(sep).join('/')}`;
  }
  return absolute;
}

export function resolvePortablePath(reference: string): string {
  if (!reference.startsWith(sharedPrefix)) return reference;
  const [name, ...parts] = reference.slice(sharedPrefix.length).split('/');
  return datasetPath(name ?? '', ...parts);
}

/** The data set a portable reference names (`shared:<name>/...`), else undefined. */
export function portableDataset(reference: string): string | undefined {
  return reference.startsWith(sharedPrefix) ? reference.slice(sharedPrefix.length).split('/')[0] : undefined;
}

/**
 * Whether two names of a file name the same one: a path as the user gave it (relative to the working folder) and the
 * form a task recorded it in (absolute, or portable) compare equal.
 */
export function sameFile(left: string, right: string): boolean {
  return resolve(resolvePortablePath(left)) === resolve(resolvePortablePath(right));
}

/**
 * How tasks name files (their OpenAPI spec, the data file they came from): `shared:<data set>/<path>`
 * for files inside a data folder (`src/core/data-location.ts`: `$TOOLFORGE_DATA`, `../shared/data`
 * or the cache), so that tasks are byte-identical on every machine wherever the data lives; otherwise
 * the absolute path the user gave.
 */
import { relative, resolve, sep } from 'node:path';
import { dataRoots, datasetPath, locateDataset, missingDataError } from '../../core/data-location.ts';
import type { OpenApiDocument } from '../../openapi/document.ts';
import { loadOpenApiFile } from '../../openapi/load-openapi.ts';

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

export function loadSpecReference(reference: string): Promise<OpenApiDocument> {
  const name = reference.startsWith(sharedPrefix) ? reference.slice(sharedPrefix.length).split('/')[0] : undefined;
  if (name && !locateDataset(name)) return Promise.reject(missingDataError(name, `the task's OpenAPI spec '${reference}'`));
  return loadOpenApiFile(resolvePortablePath(reference));
}

/**
 * How tasks name files (their OpenAPI spec, the data file they came from): `shared:<path>` for files
 * under the shared data folder, so that tasks are byte-identical on every machine; otherwise the
 * absolute path the user gave.
 */
import { relative, resolve, sep } from 'node:path';
import { sharedDataPath } from '../../core/shared-data.ts';
import type { OpenApiDocument } from '../../openapi/document.ts';
import { loadOpenApiFile } from '../../openapi/load-openapi.ts';

const sharedPrefix = 'shared:';

export function toPortablePath(path: string): string {
  const inShared = relative(sharedDataPath(), resolve(path));
  if (!inShared.startsWith('..') && !inShared.startsWith(sep) && inShared !== '') return `${sharedPrefix}${inShared.split(sep).join('/')}`;
  return resolve(path);
}

export function resolvePortablePath(reference: string): string {
  return reference.startsWith(sharedPrefix) ? sharedDataPath(...reference.slice(sharedPrefix.length).split('/')) : reference;
}

export function loadSpecReference(reference: string): Promise<OpenApiDocument> {
  return loadOpenApiFile(resolvePortablePath(reference));
}

/**
 * A task's OpenAPI spec, named as tasks name files (core/portable-path.ts): loaded from wherever its data set is on
 * this machine, or refused naming the data set that is missing.
 */
import { locateDataset, missingDataError } from '../../core/data-location.ts';
import { portableDataset, resolvePortablePath } from '../../core/portable-path.ts';
import type { OpenApiDocument } from '../../openapi/document.ts';
import { loadOpenApiFile } from '../../openapi/load-openapi.ts';

export function loadSpecReference(reference: string): Promise<OpenApiDocument> {
  const name = portableDataset(reference);
  if (name && !locateDataset(name)) return Promise.reject(missingDataError(name, `the task's OpenAPI spec '${reference}'`));
  return loadOpenApiFile(resolvePortablePath(reference));
}

/**
 * Makes the folder a file is to be created in, one level at a time, so a path that cannot hold a folder (a file on the
 * way, a read-only or virtual file system such as /proc) gives a reason in words instead of mkdir's recursive mode
 * retrying or throwing a bare errno (`EEXIST: file already exists, mkdir`).
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { errorMessage } from './errors.ts';

/** Why no file can be created at `filePath` (absolute), with the error behind it; undefined once its folder is ready. */
export function prepareFileFolder(filePath: string): { reason: string; cause?: unknown } | undefined {
  const missing: string[] = [];
  let directory = dirname(filePath);
  while (!existsSync(directory)) {
    missing.unshift(directory);
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  if (!statSync(directory).isDirectory()) return { reason: `${directory} is a file, not a folder` };
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      return { reason: `cannot create the folder ${folder} (${(error as { code?: string }).code ?? errorMessage(error)})`, cause: error };
    }
  }
  if (!existsSync(filePath)) {
    try {
      accessSync(dirname(filePath), constants.W_OK);
    } catch (error) {
      return { reason: `the folder ${dirname(filePath)} is not writable`, cause: error };
    }
  }
  return undefined;
}

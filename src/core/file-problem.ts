/**
 * Why a file the user named could not be read, in words rather than Node's errno text ("EISDIR: illegal operation on
 * a directory, read"). A folder is the common slip (the data set's folder for one of its files), so its answer names
 * the files it holds that the user may have meant.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from './errors.ts';

/** Files of these kinds are listed when a folder is given for a file. */
const dataFileExtensions = /\.(jsonl?|ya?ml|gz)$/i;
const listedFiles = 5;

export function fileProblem(path: string, error: unknown): string {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT': return 'no such file';
    case 'EISDIR': return `it is a folder, not a file${folderContents(path)}`;
    case 'ENOTDIR': return 'a part of the path is a file, not a folder';
    case 'EACCES':
    case 'EPERM': return 'permission denied';
    case 'ELOOP': return 'the path is a loop of symbolic links';
    default: return errorMessage(error);
  }
}

/** " (it holds a.json, b.json and 3 more)" for a folder with data files (names in it), else what it holds in short. */
function folderContents(path: string): string {
  let entries: string[];
  try {
    entries = readdirSync(path).sort();
  } catch {
    return '';
  }
  const files = entries.filter((name) => dataFileExtensions.test(name) && isFile(join(path, name)));
  if (files.length === 0) return entries.length === 0 ? ' (an empty one)' : ' (with no JSON, JSONL or YAML files in it)';
  const shown = files.slice(0, listedFiles);
  const more = files.length - shown.length;
  return ` (it holds ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''})`;
}

/** Whether a file (not a folder) is at `path`; false when nothing is, or it cannot be looked at. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

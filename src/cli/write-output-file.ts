import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError, errorMessage } from '../core/errors.ts';

/** Writes an `--out` file; a bad path is the user's to fix, so it becomes a ConfigError. Returns the absolute path. */
export async function writeOutputFile(cwd: string, out: string, text: string): Promise<string> {
  const path = resolve(cwd, out);
  try {
    await writeFile(path, text);
  } catch (error) {
    throw new ConfigError('config.invalid', `cannot write --out ${path}: ${errorMessage(error)}`, {
      fix: 'pass --out with a path in an existing, writable folder (or leave --out out to print to stdout)',
      cause: error,
    });
  }
  return path;
}

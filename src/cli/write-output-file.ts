import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { cannotWriteOutput, outputPathProblem } from './output-path.ts';

/**
 * Writes an `--out` file whole (a report), beside its path and renamed there, so a failure leaves no half file. A bad
 * path is the user's to fix, so it becomes a ConfigError; `after` says what is kept (see cannotWriteOutput). Returns
 * the absolute path.
 */
export async function writeOutputFile(cwd: string, out: string, text: string, after?: string): Promise<string> {
  const path = resolve(cwd, out);
  const problem = outputPathProblem(path);
  if (problem !== undefined) throw cannotWriteOutput(path, problem, after);
  const partial = join(dirname(path), `.${basename(path)}.partial-${process.pid}`);
  try {
    await writeFile(partial, text);
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw cannotWriteOutput(path, error, after);
  }
  return path;
}

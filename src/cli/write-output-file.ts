import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { cannotWriteOutput, outputPathProblem } from './output-path.ts';
import { Interrupted, onStopSignal } from './stop-signals.ts';

/**
 * Writes an `--out` file whole (a report), beside its path and renamed there, so a failure leaves no half file. A bad
 * path is the user's to fix, so it becomes a ConfigError; `after` says what is kept (see cannotWriteOutput). Returns
 * the absolute path. Ctrl-C or SIGTERM while it is written removes the partial file and leaves any file already at the
 * path as it was (the command exits 130); without this, Node's default ended the process and left the partial file.
 */
export async function writeOutputFile(cwd: string, out: string, text: string, after?: string): Promise<string> {
  const path = resolve(cwd, out);
  const problem = outputPathProblem(path);
  if (problem !== undefined) throw cannotWriteOutput(path, problem, after);
  const partial = join(dirname(path), `.${basename(path)}.partial-${process.pid}`);
  let stopped = false;
  const stopListening = onStopSignal(() => { stopped = true; });
  try {
    await writeFile(partial, text);
    if (stopped) throw new Interrupted(`${out} was not written; ${after ?? 'run the command again'}`);
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof Interrupted) throw error;
    throw cannotWriteOutput(path, error, after);
  } finally {
    stopListening();
  }
  return path;
}

import { ConfigError } from '../core/errors.ts';

/**
 * Where the CLI reads and writes. `main` takes it as a parameter so tests run the real CLI
 * in-process with captured output, a chosen working directory and a cleared environment.
 */
export type CliIo = {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Resolves once stdout has taken what was written: a command writing hundreds of MB waits for it between chunks,
   * or a pipe to a slow reader would queue the whole output in memory. Absent: stdout never holds anything back.
   */
  stdoutDrained?(): Promise<void>;
  /** Progress bars are drawn only on a terminal. */
  isStderrTty: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
};

/**
 * Standard output was closed by its reader (`toolforge export ... | head`): the output ends there, as a Unix tool's
 * does, without an error (main exits 0).
 */
export class OutputClosed extends Error {
  constructor() {
    super('standard output was closed by its reader');
  }
}

let watchingStdout = false;

/**
 * A write to standard output that failed (its reader gone, a full disk behind a redirect) ends the command with its
 * cause, not with Node's unhandled 'error' event and a stack trace.
 */
function checkStdout(): void {
  const error = process.stdout.errored;
  if (!error) return;
  const code = (error as { code?: unknown }).code;
  if (code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED') throw new OutputClosed();
  const problem = code === 'ENOSPC' || code === 'EDQUOT' ? 'no space left on the device' : code === 'EIO' ? 'an I/O error' : error.message;
  throw new ConfigError('config.invalid', `cannot write to standard output: ${problem} (${String(code ?? error.message)})`, {
    fix: 'free some space where standard output goes, or send it to another disk (a file: --out <file> where the command has it)',
    cause: error,
  });
}

export function processIo(): CliIo {
  if (!watchingStdout) {
    watchingStdout = true;
    // Recorded on the stream (errored) and raised by the next write or wait: see checkStdout.
    process.stdout.on('error', () => {});
  }
  return {
    stdout: (text) => {
      checkStdout();
      process.stdout.write(text);
      checkStdout();
    },
    stderr: (text) => { process.stderr.write(text); },
    stdoutDrained: async () => {
      checkStdout();
      await drained(process.stdout);
      checkStdout();
    },
    isStderrTty: process.stderr.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** A stream's buffer is below its high-water mark again (or the stream has closed: nothing more will drain). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (!stream.writableNeedDrain || stream.closed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

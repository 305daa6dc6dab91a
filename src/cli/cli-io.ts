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

export function processIo(): CliIo {
  return {
    stdout: (text) => { process.stdout.write(text); },
    stderr: (text) => { process.stderr.write(text); },
    stdoutDrained: () => drained(process.stdout),
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

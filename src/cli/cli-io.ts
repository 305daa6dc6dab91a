/**
 * Where the CLI reads and writes. `main` takes it as a parameter so tests run the real CLI
 * in-process with captured output, a chosen working directory and a cleared environment.
 */
export type CliIo = {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Progress bars are drawn only on a terminal. */
  isStderrTty: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
};

export function processIo(): CliIo {
  return {
    stdout: (text) => { process.stdout.write(text); },
    stderr: (text) => { process.stderr.write(text); },
    isStderrTty: process.stderr.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
  };
}

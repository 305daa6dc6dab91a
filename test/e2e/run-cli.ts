import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { repositoryRoot } from '../../src/core/data-location.ts';

export type CliResult = { code: number; stdout: string; stderr: string };

/** Runs the real CLI in-process with captured output, a working directory and an environment. */
export async function runCli(args: string[], options: { cwd: string; env?: Record<string, string | undefined> }): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (text) => { stdout += text; },
    stderr: (text) => { stderr += text; },
    isStderrTty: false,
    env: options.env ?? {},
    cwd: options.cwd,
  });
  return { code, stdout, stderr };
}

export const binPath = resolve(repositoryRoot, 'bin', 'toolforge.js');

/** Runs bin/toolforge.js as a separate process, the way `npx toolforge` does. */
export function spawnCli(args: string[], options: { cwd: string; env: Record<string, string | undefined> }): Promise<CliResult> {
  return spawnAndCollect(process.execPath, [binPath, ...args], options);
}

function spawnAndCollect(command: string, args: string[], options: { cwd: string; env: Record<string, string | undefined> }): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? 1, stdout, stderr }));
  });
}

export function temporaryDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'toolforge-e2e-'));
}

/** The environment a fresh machine has: a PATH, no API keys. */
export function keylessEnvironment(): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: process.env.HOME };
}

/**
 * How to start a process that file permissions apply to: as root (CI, containers) the same process with every
 * capability dropped (`setpriv`, so it still reaches this checkout), otherwise the user itself; when root cannot drop
 * them here, the reason to skip.
 */
export function unprivilegedPrefix(): { prefix: string[] } | { skip: string } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const probe = spawnSync('setpriv', ['--bounding-set=-all', process.execPath, '-e', ''], { stdio: 'ignore' });
  if (probe.error !== undefined || probe.status !== 0) return { skip: 'running as root, and setpriv (util-linux) cannot drop its capabilities here, so file permissions would not apply' };
  return { prefix: ['setpriv', '--bounding-set=-all'] };
}

/** spawnCli under unprivilegedPrefix(): file permissions apply to it even when the tests run as root. */
export function spawnCliUnprivileged(prefix: string[], args: string[], options: { cwd: string; env: Record<string, string | undefined> }): Promise<CliResult> {
  const [command, ...commandArguments] = [...prefix, process.execPath, binPath, ...args];
  return spawnAndCollect(command, commandArguments, options);
}

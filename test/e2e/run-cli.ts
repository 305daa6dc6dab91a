import { spawn } from 'node:child_process';
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
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [binPath, ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
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

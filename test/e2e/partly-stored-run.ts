import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { CliResult } from './run-cli.ts';
import { binPath, keylessEnvironment, spawnCli } from './run-cli.ts';

/** The newest run's id and how many of its tasks are stored, once some are and not all (a run caught storing them). */
export function partlyStoredRun(database: string): { id: string; stored: number } | undefined {
  if (!existsSync(database)) return undefined;
  try {
    const connection = new Database(database, { readonly: true });
    try {
      const run = connection.prepare('SELECT id, tasks_complete AS complete FROM runs ORDER BY rowid DESC LIMIT 1').get() as { id: string; complete: number } | undefined;
      if (!run || run.complete === 1) return undefined;
      const { stored } = connection.prepare('SELECT count(*) AS stored FROM run_tasks WHERE run_id = ?').get(run.id) as { stored: number };
      return stored > 0 ? { id: run.id, stored } : undefined;
    } finally {
      connection.close();
    }
  } catch {
    // Created or migrated this instant by the run's process.
    return undefined;
  }
}

/**
 * `toolforge <args>` started in `cwd` and SIGKILLed once it is seen storing its tasks in `database` (some stored, not
 * all): the run's id.
 */
export async function killWhileStoringTasks(args: readonly string[], options: { cwd: string; database: string }): Promise<string> {
  const child = spawn(process.execPath, [binPath, ...args], { cwd: options.cwd, env: keylessEnvironment(), stdio: 'ignore' });
  const exited = once(child, 'exit');
  let runId: string | undefined;
  for (let waited = 0; runId === undefined; waited += 5) {
    runId = partlyStoredRun(options.database)?.id;
    if (runId === undefined && (child.exitCode !== null || waited > 120_000)) throw new Error(`the run was not seen storing its tasks (exit ${child.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  child.kill('SIGKILL');
  await exited;
  return runId;
}

/** `toolforge run --resume <run> --db <database> --json` in `cwd`, once the killed process's hold on the run has lapsed. */
export async function resumeKilledRun(runId: string, options: { cwd: string; database: string }): Promise<CliResult> {
  const resume = (): Promise<CliResult> => spawnCli(['run', '--resume', runId, '--db', options.database, '--json'], { cwd: options.cwd, env: keylessEnvironment() });
  let resumed = await resume();
  // The hold lapses once the process is gone; it may still be exiting.
  for (let tries = 0; resumed.code === 2 && /being run by another process/.test(resumed.stderr) && tries < 50; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    resumed = await resume();
  }
  return resumed;
}

/**
 * A run of transformed tasks (`--transform`) killed while it stores them: `toolforge runs` says to finish it with
 * `--resume`, and the resume does, making the rest of the tasks from the run's recipe (the transforms included) as
 * the run would have.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { partlyStoredRun } from './partly-stored-run.ts';
import { binPath, keylessEnvironment, spawnCli, temporaryDirectory } from './run-cli.ts';

/** Every stored task of the database's one run, in order, as one text. */
function storedTasks(database: string): string {
  const connection = new Database(database, { readonly: true });
  try {
    return (connection.prepare('SELECT task FROM run_tasks ORDER BY ordinal').all() as { task: string }[]).map((row) => row.task).join('\n');
  } finally {
    connection.close();
  }
}

test('a --transform run killed while storing its tasks is listed as resumable, and --resume finishes it with the tasks an unbroken run stores', async () => {
  const directory = temporaryDirectory();
  const database = join(directory, 'r.db');
  const args = ['run', 'funcgen', '--model', 'builtin/oracle', '--count', '3000', '--set', 'core=4', '--transform', 'perturb:kind=case-mix', '--transform', 'perturb:kind=punctuation'];
  const child = spawn(process.execPath, [binPath, ...args, '--db', 'r.db'], { cwd: directory, env: keylessEnvironment(), stdio: 'ignore' });
  const exited = once(child, 'exit');
  let runId: string | undefined;
  for (let waited = 0; runId === undefined; waited += 5) {
    runId = partlyStoredRun(database)?.id;
    if (runId === undefined && (child.exitCode !== null || waited > 120_000)) throw new Error(`the run was not seen storing its tasks (exit ${child.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  child.kill('SIGKILL');
  await exited;
  const listed = await spawnCli(['runs', '--db', 'r.db'], { cwd: directory, env: keylessEnvironment() });
  assert.match(listed.stdout, new RegExp(`finish one with toolforge run --resume ${runId}`));
  let resumed = await spawnCli(['run', '--resume', runId, '--db', 'r.db', '--json'], { cwd: directory, env: keylessEnvironment() });
  // The killed process's hold on the run lapses once the process is gone; it may still be exiting.
  for (let tries = 0; resumed.code === 2 && /being run by another process/.test(resumed.stderr) && tries < 50; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    resumed = await spawnCli(['run', '--resume', runId, '--db', 'r.db', '--json'], { cwd: directory, env: keylessEnvironment() });
  }
  assert.equal(resumed.code, 0, resumed.stderr);
  const summary = JSON.parse(resumed.stdout);
  assert.deepEqual([summary.tasks, summary.episodes, summary.passRate], [3000, 3000, 1]);
  const unbroken = await spawnCli([...args, '--db', 'unbroken.db', '--json'], { cwd: directory, env: keylessEnvironment() });
  assert.equal(unbroken.code, 0, unbroken.stderr);
  assert.ok(storedTasks(database) === storedTasks(join(directory, 'unbroken.db')), 'the resumed run stores the same derived tasks as the unbroken one');
});

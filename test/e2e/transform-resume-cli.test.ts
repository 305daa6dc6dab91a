/**
 * A run of transformed tasks (`--transform`) killed while it stores them: `toolforge runs` says to finish it with
 * `--resume`, and the resume does, making the rest of the tasks from the run's recipe (the transforms included) as
 * the run would have.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { killWhileStoringTasks, resumeKilledRun } from './partly-stored-run.ts';
import { keylessEnvironment, spawnCli, temporaryDirectory } from './run-cli.ts';

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
  const runId = await killWhileStoringTasks([...args, '--db', 'r.db'], { cwd: directory, database });
  const listed = await spawnCli(['runs', '--db', 'r.db'], { cwd: directory, env: keylessEnvironment() });
  assert.match(listed.stdout, new RegExp(`finish one with toolforge run --resume ${runId}`));
  const resumed = await resumeKilledRun(runId, { cwd: directory, database: 'r.db' });
  assert.equal(resumed.code, 0, resumed.stderr);
  const summary = JSON.parse(resumed.stdout);
  assert.deepEqual([summary.tasks, summary.episodes, summary.passRate], [3000, 3000, 1]);
  const unbroken = await spawnCli([...args, '--db', 'unbroken.db', '--json'], { cwd: directory, env: keylessEnvironment() });
  assert.equal(unbroken.code, 0, unbroken.stderr);
  assert.ok(storedTasks(database) === storedTasks(join(directory, 'unbroken.db')), 'the resumed run stores the same derived tasks as the unbroken one');
});

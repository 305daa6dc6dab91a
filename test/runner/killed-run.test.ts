import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { ConfigError } from '../../src/core/errors.ts';
import { resumeEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { binPath, keylessEnvironment, spawnCli } from '../e2e/run-cli.ts';
import { writeNestfulData } from './nestful-data.ts';
import { temporaryDirectory } from './test-helpers.ts';

const script = fileURLToPath(new URL('../fixtures/slow-run.ts', import.meta.url));

/** Committed episodes as another process sees them; undefined until the schema exists. */
function committedEpisodes(dbPath: string): number | undefined {
  if (!existsSync(dbPath)) return undefined;
  try {
    const database = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      return (database.prepare('SELECT COUNT(*) AS count FROM episodes').get() as { count: number }).count;
    } finally {
      database.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * Starts `node <args>`, waits until `ready()` holds (polled: not a timed assertion, the bound only stops a broken
 * child from hanging the suite), and kills it with SIGKILL.
 */
async function killOnceReady(args: string[], ready: () => boolean, poll: { everyMs: number; times: number }, env?: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(env ? { env } : {}) });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  for (let attempt = 0; attempt < poll.times && child.exitCode === null; attempt += 1) {
    if (ready()) break;
    await sleep(poll.everyMs);
  }
  assert.equal(child.exitCode, null, `the child ended before it could be killed: ${stderr}`);
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
}

test('a run killed with SIGKILL keeps its committed episodes, and resume scores every episode exactly once', async () => {
  const dbPath = join(temporaryDirectory(), 'results.db');
  await killOnceReady(['--import', 'tsx', script, dbPath], () => (committedEpisodes(dbPath) ?? 0) >= 3, { everyMs: 20, times: 1500 });

  const store = openResultsStore(dbPath);
  const run = store.latestRun();
  assert.ok(run);
  assert.equal(run.status, 'running', 'a killed process cannot mark its run finished');
  const beforeResume = store.listEpisodes(run.id);
  assert.ok(beforeResume.length >= 3 && beforeResume.length < 12, `killed after ${beforeResume.length} of 12 episodes`);
  assert.ok(beforeResume.every((episode) => episode.status === 'scored'));

  const summary = await resumeEvaluation({ runId: run.id, store, suite: createFakeSuite({ slowDelayMs: 0 }) });
  assert.equal(summary.status, 'finished');
  assert.equal(summary.episodes, 12);
  assert.equal(summary.passRate, 1);
  assert.equal(summary.missingEpisodes, 0);
  const afterResume = store.listEpisodes(run.id);
  assert.equal(afterResume.length, 12);
  // Each (task, trial) exactly once, and every pre-kill row unchanged.
  assert.equal(new Set(afterResume.map((episode) => `${episode.taskId}/${episode.trial}`)).size, 12);
  for (const old of beforeResume) {
    assert.deepEqual(afterResume.find((episode) => episode.taskId === old.taskId && episode.trial === old.trial), old);
  }
  store.close();
  const raw = new Database(dbPath, { readonly: true });
  assert.deepEqual(raw.prepare(`SELECT COUNT(*) AS rows, COUNT(DISTINCT task_id || '/' || trial) AS keys, SUM(status = 'scored') AS scored
    FROM episodes WHERE run_id = ?`).get(run.id), { rows: 12, keys: 12, scored: 12 });
  raw.close();
});

/** Stored task rows as another process sees them; undefined until the schema exists. */
function storedTasks(dbPath: string): number | undefined {
  if (!existsSync(dbPath)) return undefined;
  try {
    const database = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      return (database.prepare('SELECT COUNT(*) AS count FROM run_tasks').get() as { count: number }).count;
    } finally {
      database.close();
    }
  } catch {
    return undefined;
  }
}

test('a run killed while its tasks are still being written is refused by --resume, naming the fix', async () => {
  const dbPath = join(temporaryDirectory(), 'results.db');
  await killOnceReady(['--import', 'tsx', fileURLToPath(new URL('../fixtures/stalled-tasks-run.ts', import.meta.url)), dbPath], () => (storedTasks(dbPath) ?? 0) >= 256, { everyMs: 20, times: 1500 });

  const store = openResultsStore(dbPath);
  try {
    const run = store.latestRun();
    assert.ok(run);
    assert.equal(run.taskCount, 256, 'the first batch of the stream is stored, the rest never came');
    assert.equal(store.hasAllTasks(run.id), false);
    assert.equal(store.listEpisodes(run.id).length, 0, 'no episode runs before every task is stored');
    await assert.rejects(resumeEvaluation({ runId: run.id, store, suite: createFakeSuite() }), (error: unknown) =>
      error instanceof ConfigError && error.code === 'store.invalid'
      && /stopped while its tasks were still being written \(256 stored\)/.test(error.message)
      && /start it again/.test(error.fix ?? '') && /stalled-run/.test(error.fix ?? ''));
    assert.equal(store.listEpisodes(run.id).length, 0);
  } finally {
    store.close();
  }
});

test('a replay run killed while the thread imports its tasks is continued by `run --resume`: every task stored once, every episode scored once', async () => {
  const directory = temporaryDirectory();
  const { data, replay } = writeNestfulData(directory, 8000);
  const dbPath = join(directory, 'results.db');
  // Past the 2,048 tasks the run stores itself, with episodes running: the thread is importing the rest.
  await killOnceReady([binPath, 'run', 'nestful', '--set', `data=${data}`, '--model', `replay/${replay}`, '--db', dbPath, '--json'],
    () => (storedTasks(dbPath) ?? 0) > 2048 && (committedEpisodes(dbPath) ?? 0) > 0, { everyMs: 10, times: 3000 });
  const killedAt = storedTasks(dbPath) ?? 0;
  assert.ok(killedAt > 2048 && killedAt < 8000, `killed with ${killedAt} of 8000 tasks stored`);

  await resumeToEveryTaskOnce(directory, dbPath, 8000);
});

/** `run --resume` of the killed run (the latest): it finishes with every task stored once and every episode scored once. */
async function resumeToEveryTaskOnce(directory: string, dbPath: string, count: number): Promise<void> {
  const resumed = await spawnCli(['run', '--resume', latestRunId(dbPath), '--db', dbPath, '--json'], { cwd: directory, env: keylessEnvironment() });
  assert.equal(resumed.code, 0, resumed.stderr);
  const summary = JSON.parse(resumed.stdout) as { tasks: number; episodes: number; passRate: number };
  assert.deepEqual([summary.tasks, summary.episodes, summary.passRate], [count, count, 1]);
  const raw = new Database(dbPath, { readonly: true });
  assert.deepEqual(raw.prepare('SELECT status, tasks_complete AS complete FROM runs').get(), { status: 'finished', complete: 1 });
  assert.deepEqual(raw.prepare('SELECT COUNT(*) AS tasks, COUNT(DISTINCT task_id) AS ids, MAX(ordinal) AS last FROM run_tasks').get(), { tasks: count, ids: count, last: count - 1 });
  assert.deepEqual(raw.prepare('SELECT COUNT(*) AS rows, COUNT(DISTINCT task_id) AS keys FROM episodes').get(), { rows: count, keys: count });
  raw.close();
}

test('a built-in model\'s run killed while it makes its tasks is continued by `run --resume`: no episode without its task, every task stored once, every episode scored once', async () => {
  const directory = temporaryDirectory();
  const dbPath = join(directory, 'results.db');
  // 3,000 tasks run as they are made (run-as-made.ts), stored through the episode writer thread.
  await killOnceReady([binPath, 'run', 'funcgen', '--model', 'builtin/planner', '--count', '3000', '--set', 'core=4', '--db', dbPath, '--json'],
    () => (committedEpisodes(dbPath) ?? 0) >= 300, { everyMs: 10, times: 3000 }, keylessEnvironment());
  const killedAt = storedTasks(dbPath) ?? 0;
  assert.ok(killedAt > 0 && killedAt < 3000, `killed with ${killedAt} of 3000 tasks stored`);
  const raw = new Database(dbPath, { readonly: true });
  assert.equal((raw.prepare('SELECT COUNT(*) AS orphans FROM episodes WHERE task_id NOT IN (SELECT task_id FROM run_tasks)').get() as { orphans: number }).orphans, 0);
  raw.close();
  await resumeToEveryTaskOnce(directory, dbPath, 3000);
});

function latestRunId(dbPath: string): string {
  const store = openResultsStore(dbPath, { readOnly: true });
  try {
    return store.latestRun()?.id ?? '';
  } finally {
    store.close();
  }
}

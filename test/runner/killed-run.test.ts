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

test('a run killed with SIGKILL keeps its committed episodes, and resume scores every episode exactly once', async () => {
  const dbPath = join(temporaryDirectory(), 'results.db');
  const child = spawn(process.execPath, ['--import', 'tsx', script, dbPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));

  // Poll (not a timed assertion: the bound only stops a broken child from hanging the suite).
  let committed: number | undefined;
  for (let poll = 0; poll < 1500 && child.exitCode === null; poll += 1) {
    committed = committedEpisodes(dbPath);
    if (committed !== undefined && committed >= 3) break;
    await sleep(20);
  }
  assert.equal(child.exitCode, null, `the child ended before it could be killed: ${stderr}`);
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');

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
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../fixtures/stalled-tasks-run.ts', import.meta.url)), dbPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  for (let poll = 0; poll < 1500 && child.exitCode === null; poll += 1) {
    if ((storedTasks(dbPath) ?? 0) >= 256) break;
    await sleep(20);
  }
  assert.equal(child.exitCode, null, `the child ended before it could be killed: ${stderr}`);
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');

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
  const child = spawn(process.execPath, [binPath, 'run', 'nestful', '--set', `data=${data}`, '--model', `replay/${replay}`, '--db', dbPath, '--json'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  // Past the 2,048 tasks the run stores itself, with episodes running: the thread is importing the rest.
  for (let poll = 0; poll < 3000 && child.exitCode === null; poll += 1) {
    if ((storedTasks(dbPath) ?? 0) > 2048 && (committedEpisodes(dbPath) ?? 0) > 0) break;
    await sleep(10);
  }
  assert.equal(child.exitCode, null, `the child ended before it could be killed: ${stderr}`);
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  const killedAt = storedTasks(dbPath) ?? 0;
  assert.ok(killedAt > 2048 && killedAt < 8000, `killed with ${killedAt} of 8000 tasks stored`);

  const resumed = await spawnCli(['run', '--resume', latestRunId(dbPath), '--db', dbPath, '--json'], { cwd: directory, env: keylessEnvironment() });
  assert.equal(resumed.code, 0, resumed.stderr);
  const summary = JSON.parse(resumed.stdout) as { tasks: number; episodes: number; passRate: number };
  assert.deepEqual([summary.tasks, summary.episodes, summary.passRate], [8000, 8000, 1]);
  const raw = new Database(dbPath, { readonly: true });
  assert.deepEqual(raw.prepare('SELECT status, tasks_complete AS complete FROM runs').get(), { status: 'finished', complete: 1 });
  assert.deepEqual(raw.prepare('SELECT COUNT(*) AS tasks, COUNT(DISTINCT task_id) AS ids, MAX(ordinal) AS last FROM run_tasks').get(), { tasks: 8000, ids: 8000, last: 7999 });
  assert.deepEqual(raw.prepare('SELECT COUNT(*) AS rows, COUNT(DISTINCT task_id) AS keys FROM episodes').get(), { rows: 8000, keys: 8000 });
  raw.close();
});

function latestRunId(dbPath: string): string {
  const store = openResultsStore(dbPath, { readOnly: true });
  try {
    return store.latestRun()?.id ?? '';
  } finally {
    store.close();
  }
}

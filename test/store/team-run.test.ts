/**
 * A team run on PostgreSQL: `run --workers-only` queues a run, three `toolforge worker` processes share it, one is
 * SIGKILLed mid-run; its leased episodes are claimed again by the others when the leases expire. Every episode is
 * scored exactly once, and the summary equals a single-process SQLite run of the same tasks.
 */
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openResultsStore } from '../../src/store/results-store.ts';
import { connectSynchronousPostgres } from '../../src/store/postgres/synchronous-postgres.ts';
import { binPath, runCli, spawnCli, temporaryDirectory } from '../e2e/run-cli.ts';
import { describeWithPostgres } from '../postgres-server.ts';

const runFlags = ['funcgen', '--model', 'builtin/noisy?p=0.3', '--count', '300', '--trials', '2', '--seed', '11', '--set', 'core=4', '--set', 'depth=2'];

type Outcomes = { scored: number; passed: number; failures: Record<string, number> };

describeWithPostgres('team runs on PostgreSQL', (server) => {

  test('three workers, one killed mid-run: every episode scored exactly once, the same summary as one SQLite process', async (context) => {
    try {
      await teamRun(context);
    } catch (error) {
      // A rare failure once (a run missing right after it was created) was not reproducible: keep the server's side.
      context.diagnostic(`PostgreSQL log:\n${server.log().slice(-4000)}`);
      throw error;
    }
  });

  async function teamRun(context: TestContext): Promise<void> {
    const cwd = temporaryDirectory();
    const env = { ...process.env, NO_COLOR: '1' };

    const single = await runCli(['run', ...runFlags, '--db', join(cwd, 'single.db'), '--json'], { cwd, env });
    assert.equal(single.code, 0, single.stderr);
    const singleStore = openResultsStore(join(cwd, 'single.db'), { readOnly: true });
    const singleRunId = singleStore.latestRun()?.id as string;
    const expected: Outcomes = singleStore.countOutcomes(singleRunId);
    singleStore.close();
    assert.equal(expected.scored, 600);
    assert.ok(expected.passed > 0 && expected.passed < 600, `a mix of passes and failures (${expected.passed} of 600)`);

    const queued = await runCli(['run', ...runFlags, '--db', server.url, '--workers-only', '--json'], { cwd, env });
    assert.equal(queued.code, 0, queued.stderr);
    const { runId, queuedEpisodes } = JSON.parse(queued.stdout) as { runId: string; queuedEpisodes: number };
    assert.equal(queuedEpisodes, 600);

    const startWorker = (name: string) => {
      const child = spawn(process.execPath, [binPath, 'worker', '--run', runId, '--db', server.url, '--lease', '1500', '--worker-id', name, '--concurrency', '4', '--json'],
        { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
        child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
      return { child, ended };
    };
    const workers = ['worker-a', 'worker-b', 'worker-c'].map(startWorker);

    // Kill worker-a once it has saved some episodes and while the run is far from done.
    const watcher = connectSynchronousPostgres(server.url);
    const doneBy = (worker: string): number => Number(watcher.query(
      'SELECT COUNT(*) AS count FROM episode_queue WHERE run_id = $1 AND worker = $2 AND done = 1', [runId, worker]).rows[0].count);
    const deadline = Date.now() + 120_000;
    while (doneBy('worker-a') < 30 && Date.now() < deadline) await sleep(20);
    const backends = (): number => Number(watcher.query("SELECT COUNT(*) AS count FROM pg_stat_activity WHERE application_name = 'toolforge' AND pid <> pg_backend_pid()").rows[0].count);
    const backendsBefore = backends();
    workers[0].child.kill('SIGKILL');
    const killed = await workers[0].ended;
    assert.equal(killed.signal, 'SIGKILL');
    // A COMMIT the worker sent just before it died is still applied by the server, which then sees the connection
    // close: its leases are read once the server has dropped its session (they last 1.5 s, so none has expired yet).
    let sessionGoneMs = 0;
    for (; backends() >= backendsBefore && sessionGoneMs < 2000; sessionGoneMs += 20) await sleep(20);
    await sleep(100);
    // Read once it is dead (its leases last until they expire): between two episodes a worker holds none.
    const leasedByKilled = Number(watcher.query('SELECT COUNT(*) AS count FROM episode_queue WHERE run_id = $1 AND worker = $2 AND done = 0', [runId, 'worker-a']).rows[0].count);
    const doneBy0 = doneBy('worker-a');
    const [second, third] = await Promise.all([workers[1].ended, workers[2].ended]);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(third.code, 0, third.stderr);
    const ran = [second, third].map((result) => (JSON.parse(result.stdout) as { episodesRun: number }).episodesRun);

    const rows = watcher.query('SELECT task_id, trial, status FROM episodes WHERE run_id = $1', [runId]).rows as { task_id: string; trial: number; status: string }[];
    const reclaimed = Number(watcher.query('SELECT COUNT(*) AS count FROM episode_queue WHERE run_id = $1 AND claims >= 2', [runId]).rows[0].count);
    watcher.close();
    assert.equal(rows.length, 600);
    assert.equal(new Set(rows.map((row) => `${row.task_id}#${row.trial}`)).size, 600, 'one row per (task, trial)');
    assert.ok(rows.every((row) => row.status === 'scored'));
    assert.ok(ran[0] > 0 && ran[1] > 0, `both surviving workers ran episodes (${ran.join(', ')})`);
    context.diagnostic(`killed worker-a after it saved ${doneBy0} episodes, holding ${leasedByKilled} leases (its session gone after ~${sessionGoneMs} ms); survivors ran ${ran.join(' + ')}; ${reclaimed} episodes claimed twice`);
    assert.ok(leasedByKilled === 0 || reclaimed >= 1, `the killed worker's ${leasedByKilled} leased episodes were claimed again (${reclaimed})`);

    const store = openResultsStore(server.url, { readOnly: true });
    const run = store.getRun(runId);
    assert.equal(run.status, 'finished');
    assert.deepEqual(store.countOutcomes(runId), { ...expected, infrastructureErrors: 0, cancelled: 0 });
    store.close();

    // report and export read the PostgreSQL store like a file.
    const report = await runCli(['report', runId, '--db', server.url, '--format', 'json'], { cwd, env });
    assert.equal(report.code, 0, report.stderr);
    const exported = await runCli(['export', runId, '--db', server.url], { cwd, env });
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(exported.stdout.trim().split('\n').length, 1 + 300 + 600 + 1);
  }

  test('a password in --db is never printed, stored in the run\'s provenance or exported (the test server trusts any password)', async () => {
    const cwd = temporaryDirectory();
    const env = { ...process.env, NO_COLOR: '1' };
    const withPassword = server.url.replace('postgres://toolforge@', 'postgres://toolforge:s3cret-pw@');
    assert.notEqual(withPassword, server.url);
    const run = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', withPassword], { cwd, env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /full report: toolforge report \S+ --format html --out report\.html --db 'postgres:\/\/toolforge:\*\*\*@/);
    const queued = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', withPassword, '--workers-only'], { cwd, env });
    assert.equal(queued.code, 0, queued.stderr);
    assert.match(queued.stdout, /toolforge worker --run \S+ --db 'postgres:\/\/toolforge:\*\*\*@/);
    const exported = await runCli(['export', 'latest', '--db', withPassword], { cwd, env });
    assert.equal(exported.code, 0, exported.stderr);
    const header = JSON.parse(exported.stdout.split('\n')[0]!) as { run: { provenance: { cliArgs: string[] } } };
    assert.ok(header.run.provenance.cliArgs.includes(withPassword.replace('s3cret-pw', '***')), header.run.provenance.cliArgs.join(' '));
    for (const output of [run.stdout, run.stderr, queued.stdout, queued.stderr, exported.stdout]) assert.doesNotMatch(output, /s3cret-pw/);
  });
});

describe('team run input errors', () => {
  test('an unreachable PostgreSQL, a bad lease, --run latest, and --workers-only with --resume are refused with the fix (exit 2), passwords never printed', async () => {
    const cwd = temporaryDirectory();
    const env = { ...process.env, NO_COLOR: '1' };
    const unreachable = await runCli(['runs', '--db', 'postgres://someone:secret@127.0.0.1:1/results'], { cwd, env });
    assert.equal(unreachable.code, 2);
    assert.match(unreachable.stderr, /cannot connect to PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/results/);
    assert.match(unreachable.stderr, /fix: start the server/);
    assert.doesNotMatch(unreachable.stderr, /secret/);
    const worker = await runCli(['worker', '--run', 'r', '--db', 'postgres://someone:secret@127.0.0.1:1/results'], { cwd, env });
    assert.equal(worker.code, 2);
    assert.doesNotMatch(worker.stderr, /secret/);
    const lease = await runCli(['worker', '--run', 'r', '--db', join(cwd, 'a.db'), '--lease', '10'], { cwd, env });
    assert.equal(lease.code, 2);
    assert.match(lease.stderr, /--lease <ms> with 100 <= ms <= 2147483647/);
    // On a shared database 'latest' could be a teammate's run: a worker names its run.
    const latest = await runCli(['worker', '--run', 'latest', '--db', join(cwd, 'a.db')], { cwd, env });
    assert.equal(latest.code, 2);
    assert.match(latest.stderr, /a worker names its run: pass the id 'run --workers-only' printed/);
    const resume = await runCli(['run', '--resume', 'latest', '--workers-only', '--db', join(cwd, 'a.db')], { cwd, env });
    assert.equal(resume.code, 2);
    assert.match(resume.stderr, /--workers-only/);
  });

  test('a replay run queued in one folder is run by a worker, and resumed, from another: the file is read where it was', async () => {
    const home = temporaryDirectory();
    const elsewhere = temporaryDirectory();
    const env = { ...process.env, NO_COLOR: '1' };
    assert.equal((await runCli(['generate', 'funcgen', '--count', '4', '--seed', '3', '--out', 'tasks.jsonl'], { cwd: home, env })).code, 0);
    const taskIds = readFileSync(join(home, 'tasks.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id);
    writeFileSync(join(home, 'outputs.jsonl'), taskIds.map((taskId) => JSON.stringify({ taskId, output: 'no idea' })).join('\n'));
    const database = join(home, 'team.db');
    const flags = ['--tasks', 'tasks.jsonl', '--model', 'replay/outputs.jsonl', '--db', database];
    for (const command of ['worker', 'resume'] as const) {
      // Real processes: a replay path is read from the process's own folder.
      const queued = await spawnCli(['run', ...flags, '--workers-only', '--json'], { cwd: home, env });
      assert.equal(queued.code, 0, queued.stderr);
      const { runId } = JSON.parse(queued.stdout) as { runId: string };
      const args = command === 'worker' ? ['worker', '--run', runId, '--db', database, '--json'] : ['run', '--resume', runId, '--db', database, '--json'];
      const ran = await spawnCli(args, { cwd: elsewhere, env });
      assert.equal(ran.code, 0, `${command}: ${ran.stderr}`);
      const store = openResultsStore(database, { readOnly: true });
      try {
        assert.equal(store.getRun(runId).model, 'replay/outputs.jsonl', 'the model keeps the name it was given');
        assert.equal(store.getRun(runId).provenance.modelFile, join(home, 'outputs.jsonl'));
        assert.equal(store.countOutcomes(runId).scored, 4, command);
        assert.equal(store.getRun(runId).status, 'finished');
      } finally {
        store.close();
      }
    }
    // The file gone from where it was, and not in this folder either: the error names both places.
    const queued = await spawnCli(['run', ...flags, '--workers-only', '--json'], { cwd: home, env });
    const { runId } = JSON.parse(queued.stdout) as { runId: string };
    renameSync(join(home, 'outputs.jsonl'), join(home, 'moved.jsonl'));
    const gone = await spawnCli(['worker', '--run', runId, '--db', database], { cwd: elsewhere, env });
    assert.equal(gone.code, 2, gone.stderr);
    assert.match(gone.stderr, new RegExp(`replays ${join(home, 'outputs.jsonl').replace(/[.]/g, '\\.')}, which is gone \\(and there is no outputs\\.jsonl here either\\)\n {2}fix: put the outputs file back`));
  });

  test('workers share a SQLite file on one machine too: a queued run finished by two in-process workers equals a plain run', async () => {
    const cwd = temporaryDirectory();
    const env = { ...process.env, NO_COLOR: '1' };
    const flags = ['funcgen', '--model', 'builtin/noisy?p=0.3', '--count', '20', '--seed', '5'];
    const plain = await runCli(['run', ...flags, '--db', join(cwd, 'plain.db'), '--json'], { cwd, env });
    assert.equal(plain.code, 0, plain.stderr);
    const queued = await runCli(['run', ...flags, '--db', join(cwd, 'team.db'), '--workers-only', '--json'], { cwd, env });
    const { runId } = JSON.parse(queued.stdout) as { runId: string };
    const results = await Promise.all(['one', 'two'].map((name) => runCli(['worker', '--run', runId, '--db', join(cwd, 'team.db'), '--worker-id', name, '--json'], { cwd, env })));
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const ran = results.map((result) => (JSON.parse(result.stdout) as { episodesRun: number }).episodesRun);
    assert.equal(ran[0] + ran[1], 20);
    const summary = (text: string) => {
      const { passed, episodes, failures } = JSON.parse(text) as { passed: number; episodes: number; failures: unknown };
      return { passed, episodes, failures };
    };
    const report = await runCli(['report', runId, '--db', join(cwd, 'team.db'), '--format', 'json'], { cwd, env });
    assert.equal(report.code, 0, report.stderr);
    const plainSummary = summary(plain.stdout);
    assert.equal(plainSummary.episodes, 20);
    const teamStore = openResultsStore(join(cwd, 'team.db'), { readOnly: true });
    const plainStore = openResultsStore(join(cwd, 'plain.db'), { readOnly: true });
    assert.deepEqual(teamStore.countOutcomes(runId), plainStore.countOutcomes(plainStore.latestRun()?.id as string));
    assert.equal(teamStore.getRun(runId).status, 'finished');
    teamStore.close();
    plainStore.close();
  });
});

/**
 * One process runs a run at a time. While a run is being run, another process's `run --resume`, `delete`, `rescore`
 * or `worker` of it is refused, naming the holder, and the run ends as its own process ends it. A run whose process
 * was killed is free at once (its pid is gone) and resumes. Before, a resume of a run still running stored its tasks
 * again, crashed on them, and marked the run cancelled; a delete removed it from under its process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startReportServer } from '../../src/report/report-server.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { startConversationServer } from '../fakes/conversation-server.ts';
import { binPath, keylessEnvironment, runCli, temporaryDirectory } from './run-cli.ts';

type RunRow = { id: string; status: string; holder: string | null };

function latestRun(database: string): RunRow | undefined {
  if (!existsSync(database)) return undefined;
  try {
    const connection = new Database(database, { readonly: true });
    try {
      return connection.prepare('SELECT id, status, holder FROM runs ORDER BY rowid DESC LIMIT 1').get() as RunRow | undefined;
    } finally {
      connection.close();
    }
  } catch {
    // Created or migrated this instant by the run's process.
    return undefined;
  }
}

function scored(database: string, runId: string): number {
  const connection = new Database(database, { readonly: true });
  try {
    return (connection.prepare("SELECT count(*) AS count FROM episodes WHERE run_id = ? AND status = 'scored'").get(runId) as { count: number }).count;
  } finally {
    connection.close();
  }
}

/** `args` run in their own process, once it is seen holding its run (and `ready` says so too). */
async function startHeldRun(directory: string, args: string[], ready: () => boolean = () => true): Promise<{ child: ChildProcess; runId: string }> {
  const child = spawn(process.execPath, [binPath, 'run', ...args, '--db', 'r.db'], { cwd: directory, env: keylessEnvironment(), stdio: 'ignore' });
  const database = join(directory, 'r.db');
  for (let waited = 0; ; waited += 10) {
    const run = latestRun(database);
    if (run?.holder && ready()) return { child, runId: run.id };
    if (child.exitCode !== null) throw new Error(`the run ended (exit ${child.exitCode}) before it was seen holding its run`);
    if (waited > 120_000) {
      child.kill('SIGKILL');
      throw new Error('the run was not seen holding its run within 2 minutes');
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a run being run is not resumed, deleted, rescored or worked on by another process; it ends as its process ends it', async () => {
  const directory = temporaryDirectory();
  // The endpoint does not answer until told: the run holds its run, waiting on its episodes, for as long as this takes.
  const server = await startConversationServer({ toolTurns: 0 });
  server.setBehaviour('hang');
  try {
    const { child, runId } = await startHeldRun(directory, ['funcgen', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--count', '4'], () => server.requests.length > 0);
    const holder = new RegExp(`run '${runId}' is being run by another process \\(.* pid ${child.pid}\\), so it cannot be `);
    for (const [args, doing] of [
      [['run', '--resume', runId], 'resumed'],
      [['delete', runId], 'deleted'],
      [['rescore', runId], 'rescored'],
      [['worker', '--run', runId], 'worked on by a worker'],
    ] as const) {
      const result = await runCli([...args, '--db', 'r.db'], { cwd: directory });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, holder, args.join(' '));
      assert.match(result.stderr, new RegExp(`cannot be ${doing} now\\n {2}fix: wait for that run to end, or stop it \\(Ctrl-C\\) first`), args.join(' '));
    }
    const listed = JSON.parse((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory })).stdout) as { id: string; status: string }[];
    assert.deepEqual(listed.map((run) => [run.id, run.status]), [[runId, 'running']]);
    // Its own process stops it (Ctrl-C): cancelled and let go, so it resumes here and finishes.
    child.kill('SIGINT');
    const [code] = await once(child, 'close') as [number];
    assert.equal(code, 130);
    const database = join(directory, 'r.db');
    assert.deepEqual(latestRun(database), { id: runId, status: 'cancelled', holder: null });
    server.setBehaviour('answer');
    const resumed = await runCli(['run', '--resume', runId, '--db', 'r.db'], { cwd: directory });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(latestRun(database), { id: runId, status: 'finished', holder: null }, 'the only run, finished and let go');
    assert.equal(scored(database, runId), 4);
  } finally {
    await server.close();
  }
});

test('a run whose process was killed is free at once: run --resume finishes it', async () => {
  const directory = temporaryDirectory();
  // Killed once it has scored an episode: some of its episodes are stored, the rest not run.
  const database = join(directory, 'r.db');
  const started = (): boolean => {
    const run = latestRun(database);
    try {
      return run !== undefined && scored(database, run.id) > 0;
    } catch {
      return false;
    }
  };
  const { child, runId } = await startHeldRun(directory, ['funcgen', '--model', 'builtin/random', '--count', '3000', '--concurrency', '2'], started);
  child.kill('SIGKILL');
  await once(child, 'close');
  assert.equal(latestRun(database)?.holder?.endsWith(`pid ${child.pid}`), true, 'the killed process left its hold behind');
  // Stored as running, run by no process: shown as interrupted, with the command that finishes it.
  const table = await runCli(['runs', '--db', 'r.db'], { cwd: directory });
  assert.match(table.stdout, new RegExp(`^${runId} .* interrupted `, 'm'));
  assert.match(table.stdout, new RegExp(`1 interrupted \\(stopped before they ended, no process runs them\\): finish one with toolforge run --resume ${runId} --db r\\.db\n`));
  const interrupted = JSON.parse((await runCli(['runs', '--json', '--status', 'interrupted', '--db', 'r.db'], { cwd: directory })).stdout) as { id: string; status: string }[];
  assert.deepEqual(interrupted.map((run) => [run.id, run.status]), [[runId, 'interrupted']]);
  assert.equal((await runCli(['runs', '--json', '--status', 'running', '--db', 'r.db'], { cwd: directory })).stdout, '[]\n');
  // Its report does not read as complete: its status, and how many episodes were not run or that its tasks were still
  // being stored (a built-in model's run stores its tasks as it runs them: killed just after the episodes of the tasks
  // it had stored were scored, it has none missing, and the report must not read as a finished run of fewer tasks).
  const json = JSON.parse((await runCli(['report', runId, '--format', 'json', '--db', 'r.db'], { cwd: directory })).stdout) as {
    tasks: number; trials: number; episodes: number; infrastructureErrors: number; status: string; missingEpisodes: number; tasksIncomplete?: string;
  };
  assert.equal(json.status, 'interrupted');
  assert.ok(json.missingEpisodes > 0 || (json.tasksIncomplete === 'resumable' && json.tasks < 3000), JSON.stringify(json));
  assert.equal(json.missingEpisodes, json.tasks * json.trials - json.episodes - json.infrastructureErrors);
  const report = await runCli(['report', runId, '--db', 'r.db'], { cwd: directory });
  const notRun = json.missingEpisodes > 0 ? `, ${json.missingEpisodes} not run yet` : '';
  assert.match(report.stdout, new RegExp(`${json.tasks} tasks x ${json.trials} trials = ${json.tasks * json.trials} episodes: ${json.episodes} scored, 0 infrastructure errors \\(not scored\\)${notRun}\\n`));
  if (json.tasksIncomplete !== undefined) {
    assert.match(report.stdout, new RegExp(`\\nits tasks were still being stored when it stopped \\(${json.tasks} so far\\): \`toolforge run --resume\` stores the rest and runs their episodes\\n`));
  }
  const server = await startReportServer({ dbPath: database, port: 0 });
  try {
    assert.match(await (await fetch(server.url)).text(), new RegExp(`${runId}[\\s\\S]*?<td>interrupted</td>`));
    assert.match(await (await fetch(`${server.url}runs/${runId}`)).text(), /status interrupted \(no process runs it: finish it with <code>toolforge run --resume /);
  } finally {
    await server.close();
  }
  const resumed = await runCli(['run', '--resume', runId, '--db', 'r.db'], { cwd: directory });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(latestRun(database), { id: runId, status: 'finished', holder: null });
  assert.equal(scored(database, runId), 3000);
  assert.doesNotMatch((await runCli(['report', runId, '--db', 'r.db'], { cwd: directory })).stdout, /not run yet|still being stored/);
});

test('runs names a team run no worker serves, with the command that starts one; once a worker has run it, the hint is gone', async () => {
  const directory = temporaryDirectory();
  const queued = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '3', '--workers-only', '--db', 'team.db', '--json'], { cwd: directory });
  assert.equal(queued.code, 0, queued.stderr);
  const runId = (JSON.parse(queued.stdout) as { runId: string }).runId;
  const waiting = await runCli(['runs', '--db', 'team.db'], { cwd: directory });
  assert.match(waiting.stdout, new RegExp(`\\n1 waiting for workers \\(episodes queued, none held by a worker\\): start one with toolforge worker --run ${runId} --db team\\.db\\n`));
  const worked = await runCli(['worker', '--run', runId, '--db', 'team.db'], { cwd: directory });
  assert.equal(worked.code, 0, worked.stderr);
  const finished = await runCli(['runs', '--db', 'team.db'], { cwd: directory });
  assert.match(finished.stdout, / finished /);
  assert.doesNotMatch(finished.stdout, /waiting for workers/);
});

test("a worker waiting out another worker's lease says so once, then takes the episode when the lease lapses", async () => {
  const directory = temporaryDirectory();
  const queued = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--workers-only', '--db', 'team.db', '--json'], { cwd: directory });
  assert.equal(queued.code, 0, queued.stderr);
  const runId = (JSON.parse(queued.stdout) as { runId: string }).runId;
  // A worker that claimed an episode and died: its lease lapses in a second.
  const store = openResultsStore(join(directory, 'team.db'));
  assert.ok(store.claimEpisode(runId, 'gone-worker', 1000));
  store.close();
  const worked = await runCli(['worker', '--run', runId, '--db', 'team.db', '--json'], { cwd: directory });
  assert.equal(worked.code, 0, worked.stderr);
  assert.equal(worked.stderr.match(/warning: nothing left to claim: waiting on the episodes in flight \(\d\b.*--lease time/g)?.length, 1, worked.stderr);
  assert.equal((JSON.parse(worked.stdout) as { episodes: number }).episodes, 2);
});

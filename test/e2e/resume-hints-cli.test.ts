/**
 * The commands printed to continue a run are the ones that work: the right command for who ran it (a served MCP
 * client's run is continued by serve), with the --db it lives in; a rescore is not continued by calling the model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startReportServer } from '../../src/report/report-server.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { findClosedPort } from '../fakes/fake-http-server.ts';
import { sampleRun } from '../runner/test-helpers.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { holderIsGone, thisProcessHolder } from '../../src/runner/run-hold.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { taskRow } from '../../src/store/task-row.ts';
import type { Task } from '../../src/core/task.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { runCli, temporaryDirectory } from './run-cli.ts';

test('an interrupted served run: runs and the viewer give serve --resume with the --db; run --resume refuses it with that command', async () => {
  const cwd = temporaryDirectory();
  const database = join(cwd, 'elsewhere.db');
  const store = openResultsStore(database);
  // A served run whose process was killed: status running, no holder.
  store.createRun(sampleRun('served-run', { model: 'mcp/my-client', suite: { id: 'funcgen', version: getSuite('funcgen').version } }), []);
  store.close();
  const runs = await runCli(['runs', '--db', database], { cwd });
  assert.equal(runs.code, 0, runs.stderr);
  assert.match(runs.stdout, new RegExp(`finish one with toolforge serve --resume served-run --db ${database.replace(/[.]/g, '\\.')}\\n`));
  const refused = await runCli(['run', '--resume', 'served-run', '--db', database], { cwd });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, new RegExp(`fix: continue it with its agent: toolforge serve --resume served-run --db ${database.replace(/[.]/g, '\\.')}, and point the MCP client at it again`));
  const server = await startReportServer({ dbPath: database });
  try {
    const page = await (await fetch(new URL('runs/served-run', server.url))).text();
    assert.ok(page.includes(`finish it with <code>toolforge serve --resume served-run --db ${database}</code>`), page.slice(0, 2000));
  } finally {
    await server.close();
  }
});

test('a rescore of a run that did not score every episode says so, and run --resume of the rescore is refused', async () => {
  const cwd = temporaryDirectory();
  const closed = await findClosedPort();
  const failed = await runCli(['run', 'funcgen', '--model', 'openai-compatible/nothing', '--base-url', `http://127.0.0.1:${closed}/v1`, '--count', '3',
    '--max-retries', '0', '--stop-after-errors', '0', '--concurrency', '1', '--json'], { cwd, env: { ...process.env, OPENAI_API_KEY: 'test' } });
  assert.equal(failed.code, 3, failed.stderr);
  const original = (JSON.parse(failed.stdout) as { runId: string }).runId;
  const rescored = await runCli(['rescore', original, '--json'], { cwd });
  assert.equal(rescored.code, 0, rescored.stderr);
  assert.match(rescored.stderr, new RegExp(`note: run ${original} is finished with 0 of its 3 episodes scored, so this rescore holds those 0; to rescore them all, finish it \\(toolforge run --resume ${original}\\) and rescore it again`));
  const rescoreId = (JSON.parse(rescored.stdout) as { runId: string }).runId;
  const resumed = await runCli(['run', '--resume', rescoreId], { cwd });
  assert.equal(resumed.code, 2, resumed.stderr);
  assert.match(resumed.stderr, new RegExp(`run '${rescoreId}' is a rescore of run '${original}': it holds that run's episodes scored again, so it cannot be continued by calling the model`));
  assert.match(resumed.stderr, new RegExp(`fix: finish run '${original}' \\(toolforge run --resume ${original}\\), then rescore it again`));
});

test('a run stopped while storing tasks nothing can make again: runs, the viewer and run --resume all say to start it again and delete it, with the --db', async () => {
  const cwd = temporaryDirectory();
  const database = join(cwd, 'elsewhere.db');
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, {});
  const tasks = await generateTasks(suite, { seed: 0, count: 2, params });
  const store = openResultsStore(database);
  // Killed while storing the tasks a phrasing model wrote: no recipe, no tasks file, one task of several stored.
  const cliArgs = ['run', 'funcgen', '--model', 'builtin/oracle', '--set', 'phrasing=model', '--phrasing-model', 'openai/gpt-4.1', '--db', database];
  const started = sampleRun('phrased-run', { suite: { id: 'funcgen', version: suite.version } });
  store.beginRun({ ...started, provenance: { ...started.provenance, cliArgs } });
  store.appendTasks('phrased-run', [taskRow(tasks[0])], 0);
  // A run of the suite's own tasks stopped at the same point is resumed from its recipe.
  const recipeRun = sampleRun('recipe-run', { suite: { id: 'funcgen', version: suite.version } });
  store.beginRun({ ...recipeRun, provenance: { ...recipeRun.provenance, taskRecipe: { seed: 0, count: 2, params } } });
  store.appendTasks('recipe-run', [taskRow(tasks[0])], 0);
  store.close();
  const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const startAgain = `start it again with the command that started it (toolforge ${cliArgs.join(' ')}), and delete this one with 'toolforge delete phrased-run --db ${database}'`;
  const runs = await runCli(['runs', '--db', database], { cwd });
  assert.equal(runs.code, 0, runs.stderr);
  assert.match(runs.stdout, new RegExp(`^1 interrupted \\(stopped before they ended, no process runs them\\): finish one with toolforge run --resume recipe-run --db ${escaped(database)}$`, 'm'));
  assert.match(runs.stdout, new RegExp(`^1 stopped while storing tasks that cannot be made again \\(a phrasing model's, or derived from a file or another run\\), so --resume cannot finish them: ${escaped(startAgain)}$`, 'm'));
  const refused = await runCli(['run', '--resume', 'phrased-run', '--db', database], { cwd });
  assert.equal(refused.code, 2);
  assert.ok(refused.stderr.includes(`fix: ${startAgain}`), refused.stderr);
  const server = await startReportServer({ dbPath: database });
  try {
    const page = await (await fetch(new URL('runs/phrased-run', server.url))).text();
    assert.ok(page.includes('stopped while storing tasks that cannot be made again'), page.slice(0, 2000));
    assert.ok(!page.includes('toolforge run --resume phrased-run'), 'no resume command is offered');
  } finally {
    await server.close();
  }
});

/** A temporary folder, the path of a database in it, and two funcgen tasks (seed 0, default knobs) to record runs of. */
async function twoTaskFolder(databaseName: string): Promise<{ cwd: string; database: string; suite: ReturnType<typeof getSuite>; tasks: Task[] }> {
  const cwd = temporaryDirectory();
  const suite = getSuite('funcgen');
  const tasks = await generateTasks(suite, { seed: 0, count: 2, params: resolveKnobs(suite.id, suite.knobs, {}) });
  return { cwd, database: join(cwd, databaseName), suite, tasks };
}

test('runs, report and the viewer name what finishes a cancelled or failed run with work left, as for a killed one; a cancelled run with every episode scored has nothing left', async () => {
  const { cwd, database, suite, tasks } = await twoTaskFolder('stopped.db');
  // Real episodes (the report reads their scores), copied into runs stopped at each point.
  const source = await runEvaluation({ suite, tasks, modelRef: 'builtin/planner', seed: 0, params: tasks[0]!.params, dbPath: database });
  const store = openResultsStore(database);
  const episodes = [...store.iterateEpisodes(source.runId)];
  const stamp = { suite: { id: 'funcgen', version: suite.version }, trials: 1 };
  for (const [id, status, scored] of [['cancelled-run', 'cancelled', 1], ['failed-run', 'failed', 0], ['cancelled-at-the-end', 'cancelled', 2]] as const) {
    store.createRun(sampleRun(id, stamp), tasks);
    store.saveEpisodes(episodes.slice(0, scored).map((episode) => ({ ...episode, runId: id })));
    store.setRunStatus(id, status);
  }
  store.close();
  const runs = await runCli(['runs', '--db', database], { cwd });
  assert.equal(runs.code, 0, runs.stderr);
  const hints = runs.stdout.split('\n').filter((line) => /^\d+ /.test(line));
  assert.deepEqual(hints, [
    `1 cancelled (stopped before they ended, by Ctrl-C or a stop signal): finish one with toolforge run --resume cancelled-run --db ${database}`,
    `1 failed (stopped by an error; fix it first): finish one with toolforge run --resume failed-run --db ${database}`,
  ]);
  // A report of it says its figures are of what it ran, and what finishes it.
  const reported = await runCli(['report', 'cancelled-run', 'failed-run', 'cancelled-at-the-end', '--db', database], { cwd });
  assert.equal(reported.code, 0, reported.stderr);
  assert.deepEqual(reported.stderr.split('\n').filter((line) => line.startsWith('note: run ')), [
    `note: run cancelled-run is cancelled: 1 of its 2 episodes scored, so its figures are of what it ran; finish it with toolforge run --resume cancelled-run --db ${database}`,
    `note: run failed-run is failed: 0 of its 2 episodes scored, so its figures are of what it ran; finish it with toolforge run --resume failed-run --db ${database}`,
  ]);
  const server = await startReportServer({ dbPath: database });
  try {
    const page = async (runId: string): Promise<string> => (await fetch(new URL(`runs/${runId}`, server.url))).text();
    assert.ok((await page('cancelled-run')).includes(`status cancelled (stopped by Ctrl-C or a stop signal before it ended: finish it with <code>toolforge run --resume cancelled-run --db ${database}</code>)`));
    assert.ok((await page('failed-run')).includes(`status failed (stopped by an error before it ended: finish it with <code>toolforge run --resume failed-run --db ${database}</code>)`));
    assert.match(await page('cancelled-at-the-end'), /status cancelled, started/);
  } finally {
    await server.close();
  }
});

test('report of a run still going says its figures are of what was run so far: a run a live process holds, and a team run waiting for workers (with the worker command)', async () => {
  const { cwd, database, suite, tasks } = await twoTaskFolder('going.db');
  const queued = await runEvaluation({ suite, tasks, modelRef: 'builtin/planner', seed: 0, params: tasks[0]!.params, dbPath: database, workersOnly: true });
  const store = openResultsStore(database);
  store.createRun(sampleRun('held-run', { suite: { id: 'funcgen', version: suite.version }, trials: 1 }), tasks);
  // Held by this (live) process, as a run in progress is.
  assert.equal(store.holdRun('held-run', thisProcessHolder(), 60_000, holderIsGone), undefined, 'nothing else holds it');
  store.close();
  const reported = await runCli(['report', 'held-run', queued.runId, '--db', database], { cwd });
  assert.equal(reported.code, 0, reported.stderr);
  assert.deepEqual(reported.stderr.split('\n').filter((line) => line.startsWith('note: run ')), [
    'note: run held-run is still running: 0 of its 2 episodes scored, so its figures are of what was run until now',
    `note: run ${queued.runId} is waiting for workers: 0 of its 2 episodes scored, so its figures are of what was run; start one with toolforge worker --run ${queued.runId} --db ${database}`,
  ]);
});

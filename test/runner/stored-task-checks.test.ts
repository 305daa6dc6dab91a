/**
 * A resumed run reads tasks another process stored, from a database that may have been edited since: each is checked
 * as a task entering the run is (shape, suite and version, ground truth, a unique id), and a row that is not a task
 * stored under its own id is a damaged row for every reader, never a TypeError, a silently lost episode or a wrong score.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resumeEvaluation, runEvaluation } from '../../src/runner/run-evaluation.ts';
import { runEpisode } from '../../src/runner/run-episode.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { temporaryDirectory } from './test-helpers.ts';
import { runCli } from '../e2e/run-cli.ts';
import { dirname } from 'node:path';

const funcgen = getSuite('funcgen');
const params = resolveKnobs(funcgen.id, funcgen.knobs, { core: '3', depth: '2', connected: '1', disconnected: '1' });
const tasks = await generateTasks(funcgen, { seed: 4, count: 6, params, validate: false });

/** A finished run whose task 3 has lost its episodes (as a killed run has), with task 3 edited by `edit`. */
async function editedRun(edit: (task: Record<string, any>) => unknown): Promise<{ path: string; runId: string }> {
  const path = join(temporaryDirectory(), 'edited.db');
  const summary = await runEvaluation({ suite: funcgen, tasks, trials: 2, modelRef: 'builtin/planner', seed: 4, params, concurrency: 2, dbPath: path });
  const database = new Database(path);
  const row = database.prepare('SELECT task_id, task FROM run_tasks WHERE run_id = ? AND ordinal = 3').get(summary.runId) as { task_id: string; task: string };
  database.prepare('UPDATE run_tasks SET task = ? WHERE run_id = ? AND ordinal = 3').run(JSON.stringify(edit(JSON.parse(row.task))), summary.runId);
  database.prepare('DELETE FROM episodes WHERE run_id = ? AND task_id = ?').run(summary.runId, row.task_id);
  database.close();
  return { path, runId: summary.runId };
}

async function resumeRefusal(edit: (task: Record<string, any>) => unknown): Promise<{ code: string; message: string }> {
  const { path, runId } = await editedRun(edit);
  const store = openResultsStore(path);
  try {
    await resumeEvaluation({ runId, store });
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  } finally {
    store.close();
  }
  assert.fail('the resume ran an edited task');
}

describe('stored tasks read back by a resumed run', () => {
  test('an edited ground truth, tool list, version, limits or missing field is refused, naming the run and the task', async () => {
    const cases: [string, (task: Record<string, any>) => unknown, RegExp][] = [
      ['target value', (task) => { task.expected.target.value += 1; return task; }, /stored task 3 .*target/],
      ['extra tool', (task) => { task.tools.push({ ...task.tools[0], name: 'func_extra' }); return task; }, /stored task 3 .*func_extra/],
      ['suite version', (task) => { task.suite.version = '0.0.1'; return task; }, /stored task 3 .*version 0\.0\.1/],
      ['limits type', (task) => { task.limits.maxTurns = '15'; return task; }, /stored task 3 .*maxTurns/],
      ['no tools', (task) => { delete task.tools; return task; }, /stored task 3 .*tools/],
      ['another suite', (task) => { task.suite.id = 'nestful'; return task; }, /stored task 3 .*belongs to suite 'nestful'/],
    ];
    for (const [name, edit, message] of cases) {
      const refusal = await resumeRefusal(edit);
      assert.equal(refusal.code, 'store.invalid', name);
      assert.match(refusal.message, message, name);
    }
  });

  test('a row that is not a task stored under its own id is a damaged row for every reader', async () => {
    const cases: [string, (task: Record<string, any>) => unknown, RegExp][] = [
      ['null', () => null, /it is null, not a task object/],
      ['array', () => [], /it is an array, not a task object/],
      ['the next task\'s id', (task) => ({ ...task, id: tasks[4].id }), /its id is ".*", but it is stored as task/],
    ];
    for (const [name, edit, message] of cases) {
      const { path, runId } = await editedRun(edit);
      const store = openResultsStore(path);
      for (const read of [() => store.listTasks(runId), () => [...store.iterateTasks(runId)], () => store.listTasksBetween(runId, 0, 5)]) {
        assert.throws(read, (error: Error & { code?: string }) => error.code === 'store.invalid' && message.test(error.message) && error.message.includes(runId), name);
      }
      await assert.rejects(resumeEvaluation({ runId, store }), (error: Error & { code?: string }) => error.code === 'store.invalid' && message.test(error.message), name);
      store.close();
    }
  });

  test('the CLI names the edited task and does not offer --resume for a run that cannot go on', async () => {
    const { path, runId } = await editedRun((task) => { task.expected.target.value += 1; return task; });
    const resumed = await runCli(['run', '--resume', runId, '--db', path], { cwd: dirname(path) });
    assert.equal(resumed.code, 2, resumed.stderr);
    assert.match(resumed.stderr, /error: run '.*': its stored task 3 is not one it can run/);
    assert.doesNotMatch(resumed.stderr, /continue it with/);
  });

  test('an episode whose setup throws leaves no timer behind (the process would wait out the task\'s time limit)', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const refusing = { ref: 'builtin/refusing', forEpisode: () => { throw new Error('this model refuses the task'); } };
    await assert.rejects(
      runEpisode({ suite: funcgen, task: tasks[0], trial: 0, mode: 'calls', model: refusing } as unknown as Parameters<typeof runEpisode>[0]),
      /refuses the task/,
    );
    assert.equal(timers(), before);
  });
});

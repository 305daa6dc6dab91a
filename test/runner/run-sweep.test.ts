import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/core/errors.ts';
import { gridPoints, runSweep } from '../../src/runner/run-sweep.ts';
import { getSuite, listSuites } from '../../src/suites/registry.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { recipeTasks } from '../../src/runner/task-import.ts';
import type { TaskRecipe } from '../../src/runner/task-import.ts';

const funcgen = getSuite('funcgen');
const dbPath = (): string => join(mkdtempSync(join(tmpdir(), 'toolforge-sweep-')), 'results.db');

describe('runSweep', () => {
  test('grid points are the cross product, first knob slowest; bad grids are refused naming the fix', () => {
    assert.deepEqual(gridPoints(funcgen, { core: ['5', '10'], depth: ['1', '2'] }, {}), [
      { core: '5', depth: '1' }, { core: '5', depth: '2' }, { core: '10', depth: '1' }, { core: '10', depth: '2' },
    ]);
    assert.throws(() => gridPoints(funcgen, {}, {}), /at least one --grid/);
    assert.throws(() => gridPoints(funcgen, { nope: ['1'] }, {}), /has no knob 'nope'/);
    assert.throws(() => gridPoints(funcgen, { core: ['x'] }, {}), /knob 'core' cannot be 'x'/);
    // The fix names the flag the value came through, with what each value may be.
    assert.throws(() => gridPoints(funcgen, { core: ['5', '1000'] }, {}), /knob 'core' cannot be '1000'\n {2}fix: --grid core=<v1>,<v2>,\.\.\. \(each: integer in \[2, 200\]\)/);
    assert.throws(() => gridPoints(funcgen, { core: ['5', '5'] }, {}), /distinct values, got '5,5' \('5' twice\)/);
    // One value typed two ways is one point: it would run twice and be pooled as two.
    assert.throws(() => gridPoints(funcgen, { core: ['5', '05'] }, {}), /--grid core needs distinct values, got '5,05' \('5' and '05' are both 5\)/);
    assert.throws(() => gridPoints(funcgen, { restate: ['true', 'false', 'TRUE'] }, {}), /distinct values|restate/);
    assert.throws(() => gridPoints(funcgen, { core: ['5'] }, { core: '6' }), /both swept .* and fixed/);
  });

  test('a grid with no valid point is refused; models are checked before anything runs', async () => {
    await assert.rejects(runSweep({ suite: funcgen, grid: { core: ['3'], depth: ['3'] }, models: ['builtin/planner'], count: 1, dbPath: dbPath() }), /no point of the grid is valid/);
    await assert.rejects(runSweep({ suite: funcgen, grid: { core: ['3'] }, models: ['builtin/nobody'], count: 1, dbPath: dbPath() }), ConfigError);
    await assert.rejects(runSweep({ suite: funcgen, grid: { core: ['3'] }, models: [], count: 1, dbPath: dbPath() }), /at least one model/);
    // Settings on built-in models only would apply to nothing: refused before anything is stored.
    const settingsPath = dbPath();
    await assert.rejects(runSweep({ suite: funcgen, grid: { core: ['3'] }, models: ['builtin/planner', 'builtin/oracle'], settings: { temperature: 0.7 }, count: 1, dbPath: settingsPath }),
      (error: ConfigError) => error.code === 'config.invalid' && /--temperature: every model of the sweep is built in/.test(error.message) && /drop --temperature/.test(error.fix ?? ''));
    const settingsStore = openResultsStore(settingsPath);
    assert.equal(settingsStore.listRuns().length, 0);
    settingsStore.close();
    // A mode the suite lacks fails before the first point, with nothing stored.
    const path = dbPath();
    const points: unknown[] = [];
    await assert.rejects(runSweep({ suite: funcgen, grid: { core: ['3', '4'] }, models: ['builtin/planner'], mode: 'code', count: 1, dbPath: path, onPoint: (point) => points.push(point) }),
      (error: Error & { code?: string }) => error.code === 'config.unsupported-mode' && /does not support mode 'code'/.test(error.message));
    assert.deepEqual(points, []);
    const store = openResultsStore(path);
    assert.equal(store.listRuns().length, 0);
    store.close();
  });

  test('a sweep without --grid gets an example every suite accepts, on a difficulty knob rather than a data path', () => {
    for (const suite of listSuites()) {
      let fix = '';
      assert.throws(() => gridPoints(suite, {}, {}), (error: ConfigError) => {
        fix = error.fix ?? '';
        return /at least one --grid/.test(error.message);
      });
      const example = /e\.g\. --grid (\w+)=(\S+) /.exec(fix);
      assert.ok(example, `${suite.id}: ${fix}`);
      const [, name, values] = example;
      assert.notEqual(suite.knobs.find((knob) => knob.name === name)?.type, 'string', `${suite.id}: ${fix}`);
      // The example is a valid grid: every value resolves (a suite may still refuse a whole point, as for any grid).
      assert.equal(gridPoints(suite, { [name]: values.split(',') }, {}).length, values.split(',').length, `${suite.id}: ${fix}`);
    }
  });

  test('each point\'s tasks are made once and streamed: every model\'s run of a point has the same tasks; a rejected point is skipped', async () => {
    const streams: unknown[] = [];
    // The suite as registered, with its stream counted; generate is not there to fall back on.
    const counted = { ...funcgen, generate: () => Promise.reject(new Error('a sweep must stream its tasks')), streamTasks: (request: Parameters<NonNullable<typeof funcgen.streamTasks>>[0]) => {
      streams.push(request.params.core);
      return funcgen.streamTasks!(request);
    } };
    const path = dbPath();
    const result = await runSweep({ suite: counted, grid: { core: ['3', '4'], depth: ['1', '3'] }, models: ['builtin/oracle', 'builtin/random', 'builtin/planner'], count: 5, dbPath: path });
    // depth 3 needs core >= 4: one point skipped, refused before any run was recorded.
    assert.equal(result.skipped.length, 1);
    assert.deepEqual(streams, [3, 3, 4, 4]);
    assert.equal(result.runs.length, 9);
    const store = openResultsStore(path);
    try {
      assert.equal(store.listRuns({}).length, 9);
      for (let point = 0; point < 3; point += 1) {
        const [first, ...others] = result.runs.slice(point * 3, point * 3 + 3).map((run) => JSON.stringify(Array.from(store.iterateTasks(run.summary.runId))));
        assert.equal(JSON.parse(first).length, 5);
        for (const other of others) assert.equal(other, first);
      }
      assert.deepEqual(result.runs.filter((run) => run.model === 'builtin/oracle').map((run) => run.summary.passRate), [1, 1, 1]);
    } finally {
      store.close();
    }
  });

  test('--transform derives every point\'s tasks: each run records the chain and a recipe that makes its tasks again; a transform that asks a phrasing model is refused before anything runs', async () => {
    const path = dbPath();
    const chain = ['perturb:kind=case-mix', 'rename-tools'];
    const result = await runSweep({ suite: funcgen, grid: { core: ['4', '6'] }, fixed: { depth: '2' }, models: ['builtin/planner', 'builtin/oracle'], count: 6, seed: 3, transforms: chain, dbPath: path });
    assert.deepEqual(result.runs.map((run) => run.summary.passRate), [1, 1, 1, 1]);
    const store = openResultsStore(path);
    try {
      for (const { summary } of result.runs) {
        const run = store.getRun(summary.runId);
        assert.deepEqual(run.provenance.transforms?.map((transform) => transform.id), ['perturb', 'rename-tools']);
        assert.deepEqual(run.provenance.taskRecipe?.transforms, chain);
        const stored = Array.from(store.iterateTasks(run.id));
        assert.equal(stored.length, 6);
        for (const task of stored) assert.equal(task.origin?.transforms?.length, 2);
        // What a resume of a run stopped while storing its tasks relies on: the recorded recipe makes the same tasks.
        const remade = [];
        const tasks = recipeTasks(funcgen, run.provenance.taskRecipe as TaskRecipe);
        for (let step = await tasks.next(); !step.done; step = await tasks.next()) remade.push(step.value);
        assert.equal(JSON.stringify(remade), JSON.stringify(stored));
      }
    } finally {
      store.close();
    }
    const refusedPath = dbPath();
    await assert.rejects(runSweep({ suite: funcgen, grid: { core: ['4', '6'] }, models: ['builtin/planner'], transforms: ['perturb:paraphrase'], dbPath: refusedPath }),
      (error: ConfigError) => error.code === 'config.invalid' && /perturb:paraphrase asks a phrasing model .* a sweep has none/.test(error.message) && /--phrasing-model/.test(error.fix ?? ''));
    assert.equal(existsSync(refusedPath), false);
  });

  test('an interrupt stops the sweep between runs and returns what ran', async () => {
    const controller = new AbortController();
    const result = await runSweep({
      suite: funcgen, grid: { core: ['3', '4', '5'] }, models: ['builtin/planner'], fixed: { depth: '1' }, count: 2, dbPath: dbPath(), validate: false, signal: controller.signal,
      onProgress: (event) => { if (event.type === 'run-end') controller.abort(new Error('interrupted')); },
    });
    assert.equal(result.cancelled, true);
    assert.equal(result.runs.length, 1);
    assert.deepEqual(result.runs[0].point.core, 3);
  });
});

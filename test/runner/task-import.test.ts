import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ProviderError, ToolForgeError } from '../../src/core/errors.ts';
import type { JsonObject } from '../../src/core/json.ts';
import { forEachWithConcurrency } from '../../src/runner/bounded-concurrency.ts';
import { generateTasks, streamGeneratedTasks } from '../../src/runner/generate-tasks.ts';
import { resumeEvaluation, runEvaluation } from '../../src/runner/run-evaluation.ts';
import type { RunOptions } from '../../src/runner/run-evaluation.ts';
import type { RunProgressEvent } from '../../src/runner/run-progress.ts';
import { selectTaskStream } from '../../src/runner/select-tasks.ts';
import { storeTasks } from '../../src/runner/store-tasks.ts';
import { summarizeRun } from '../../src/runner/summarize-run.ts';
import type { TaskRecipe } from '../../src/runner/task-import.ts';
import { canImportOnThread, importStreamStart } from '../../src/runner/task-import.ts';
import { receiveError, transferError } from '../../src/core/transferred-error.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import type { Task } from '../../src/core/task.ts';
import { funcgenSuite } from '../../src/suites/funcgen/index.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { nestfulSuite } from '../../src/suites/nestful/index.ts';
import type { Suite } from '../../src/suites/spec.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { writeNestfulData } from './nestful-data.ts';
import { sampleRun, temporaryDirectory } from './test-helpers.ts';
import { taskRow } from '../../src/store/task-row.ts';
import { parseTransformRequest } from '../../src/transforms/registry.ts';

type Case = { suite: Suite; recipe: TaskRecipe; modelRef: string; dbPath: string; trials?: number; concurrency?: number; allowMissingOutputs?: boolean };

/** The run as the CLI starts it: the task stream and, when `threaded`, the recipe that lets the run import it on a thread. */
async function run(input: Case, threaded: boolean, events: RunProgressEvent[] = []): ReturnType<typeof runEvaluation> {
  const { suite, recipe } = input;
  const tasks = selectTaskStream(streamGeneratedTasks(suite, { seed: recipe.seed, count: recipe.count, params: recipe.params }), recipe.selection ?? {});
  const options: RunOptions = {
    suite, tasks, modelRef: input.modelRef, seed: recipe.seed, params: recipe.params, dbPath: input.dbPath, trials: input.trials ?? 1,
    concurrency: input.concurrency ?? 4, allowMissingOutputs: input.allowMissingOutputs ?? false, onProgress: (event) => events.push(event),
    // The import thread takes over after the first 128 tasks (2,048 by default).
    ...(threaded ? { taskRecipe: recipe, importThreadAfter: 128 } : {}),
  };
  return runEvaluation(options);
}

/** A summary without what differs between two runs of the same work (ids, times, durations). */
function comparable(summary: object): unknown {
  return JSON.parse(JSON.stringify(summary, (key, value: unknown) => (/^(runId|createdAt)$|duration|latency|seconds/i.test(key) ? undefined : value)));
}

function storedRuns(dbPath: string): { id: string; tasks: string; episodes: number; complete: boolean }[] {
  const store = openResultsStore(dbPath);
  try {
    return store.listRuns().map((stored) => ({
      id: stored.id, tasks: JSON.stringify(store.listTasks(stored.id)), episodes: store.listEpisodeOutcomes(stored.id).length, complete: store.hasAllTasks(stored.id),
    }));
  } finally {
    store.close();
  }
}

/** A run of the fake suite begun (no tasks stored) in an in-memory store, and four of its tasks. */
async function withFakeRun(runId: string, use: (store: ResultsStore, suite: Suite, tasks: Task[]) => Promise<void>): Promise<void> {
  const suite = createFakeSuite();
  const tasks = await generateTasks(suite, { seed: 3, count: 4, params: {} });
  const store = openResultsStore(':memory:');
  try {
    store.beginRun(sampleRun(runId));
    await use(store, suite, tasks);
  } finally {
    store.close();
  }
}

describe('tasks imported on a worker thread while the episodes run', () => {
  const directory = temporaryDirectory();

  test('give the same stored tasks, episodes and summary as the one-thread run, and report the run size when the import ends', async () => {
    const { data, replay } = writeNestfulData(directory, 700);
    const params = resolveKnobs(nestfulSuite.id, nestfulSuite.knobs, { data }) as JsonObject;
    const base = { suite: nestfulSuite, recipe: { seed: 0, params }, modelRef: `replay/${replay}`, trials: 2 };
    const events: RunProgressEvent[] = [];
    const threaded = await run({ ...base, dbPath: join(directory, 'threaded.db') }, true, events);
    const plain = await run({ ...base, dbPath: join(directory, 'plain.db') }, false);
    assert.equal(threaded.status, 'finished');
    assert.equal(threaded.episodes, 1400);
    assert.equal(threaded.passRate, 1);
    assert.deepEqual(comparable(threaded), comparable(plain));
    const [threadedRun] = storedRuns(join(directory, 'threaded.db'));
    const [plainRun] = storedRuns(join(directory, 'plain.db'));
    assert.equal(threadedRun.tasks, plainRun.tasks);
    assert.equal(threadedRun.episodes, 1400);
    assert.equal(threadedRun.complete, true);
    // Started before its size was known; the size came once every task was stored, and every episode counted against it.
    const start = events.find((event) => event.type === 'run-start');
    assert.equal(start?.type === 'run-start' && start.tasksImporting, true);
    const planned = events.filter((event) => event.type === 'run-planned');
    assert.deepEqual(planned.map((event) => event.type === 'run-planned' && [event.plannedEpisodes, event.totalEpisodes]), [[1400, 1400]]);
    const ends = events.filter((event) => event.type === 'episode-end');
    assert.equal(ends.length, 1400);
    const last = ends.at(-1);
    assert.equal(last?.type === 'episode-end' ? last.plannedEpisodes : 0, 1400);
  });

  test('a generated suite with a selection: the same tasks in the same order as the one-thread run', async () => {
    const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, {}) as JsonObject;
    // 1, 3, 10-19, 30-39, 100-199, 300-399 of 600, the first 200 of them: the thread re-reads past the first 128.
    const base = { suite: funcgenSuite, recipe: { seed: 11, count: 600, params, selection: { taskIds: ['funcgen/11/1*', 'funcgen/11/3*'], limit: 200 } }, modelRef: 'builtin/oracle' };
    const events: RunProgressEvent[] = [];
    const threaded = await run({ ...base, dbPath: join(directory, 'funcgen-threaded.db') }, true, events);
    const plain = await run({ ...base, dbPath: join(directory, 'funcgen-plain.db') }, false);
    assert.ok(events.some((event) => event.type === 'run-planned'));
    assert.equal(threaded.tasks, 200);
    assert.equal(threaded.passRate, 1);
    assert.match(storedRuns(join(directory, 'funcgen-threaded.db'))[0].tasks, /"id":"funcgen\/11\/1".*"id":"funcgen\/11\/3".*"id":"funcgen\/11\/10"/);
    assert.equal(storedRuns(join(directory, 'funcgen-threaded.db'))[0].tasks, storedRuns(join(directory, 'funcgen-plain.db'))[0].tasks);
    assert.deepEqual(comparable(threaded), comparable(plain));
  });

  test('a replay file missing outputs refuses the run with the one-thread message, and leaves no run behind', async () => {
    const { data, replay } = writeNestfulData(directory, 600, [5, 590]);
    const params = resolveKnobs(nestfulSuite.id, nestfulSuite.knobs, { data }) as JsonObject;
    const base = { suite: nestfulSuite, recipe: { seed: 0, params }, modelRef: `replay/${replay}` };
    const messages: string[] = [];
    for (const threaded of [true, false]) {
      const dbPath = join(directory, `missing-${threaded}.db`);
      await assert.rejects(run({ ...base, dbPath }, threaded), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.code, 'input.invalid');
        messages.push(error.message);
        return true;
      });
      assert.deepEqual(storedRuns(dbPath), []);
    }
    assert.match(messages[0], /has no output for 2 of 600 tasks \(nestful\/s-5, nestful\/s-590\)/);
    assert.equal(messages[0], messages[1]);
    // --allow-missing: the run goes on, the two are scored as failures and recorded in the provenance.
    const allowed = await run({ ...base, dbPath: join(directory, 'allowed.db'), allowMissingOutputs: true }, true);
    assert.equal(allowed.episodes, 600);
    assert.equal(allowed.passRate, 598 / 600);
    const store = openResultsStore(join(directory, 'allowed.db'));
    try {
      assert.deepEqual(store.getRun(allowed.runId).provenance.missingOutputs, ['nestful/s-5', 'nestful/s-590']);
    } finally {
      store.close();
    }
  });

  test('a bad data line fails the run with the importer\'s own error (code, message, fix), and leaves no run behind', async () => {
    const { data, replay } = writeNestfulData(directory, 400);
    const broken = join(directory, 'broken.jsonl');
    const lines = (await import('node:fs')).readFileSync(data, 'utf8').split('\n');
    lines[300] = '{"sample_id": "bad", "input": ';
    writeFileSync(broken, lines.join('\n'));
    const params = resolveKnobs(nestfulSuite.id, nestfulSuite.knobs, { data: broken }) as JsonObject;
    const errors: ConfigError[] = [];
    for (const threaded of [true, false]) {
      const dbPath = join(directory, `broken-${threaded}.db`);
      await assert.rejects(run({ suite: nestfulSuite, recipe: { seed: 0, params }, modelRef: `replay/${replay}`, dbPath }, threaded), (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error));
        errors.push(error);
        return true;
      });
      assert.deepEqual(storedRuns(dbPath), []);
    }
    assert.equal(errors[0].code, 'input.invalid');
    assert.match(errors[0].message, /broken\.jsonl line 301: not JSON/);
    assert.deepEqual([errors[0].code, errors[0].message, errors[0].fix], [errors[1].code, errors[1].message, errors[1].fix]);
  });

  test('a selection that matches no task refuses the run as the one-thread path does, leaving no run', async () => {
    const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, {}) as JsonObject;
    const errors: ConfigError[] = [];
    for (const threaded of [true, false]) {
      const dbPath = join(directory, `empty-${threaded}.db`);
      await assert.rejects(run({ suite: funcgenSuite, recipe: { seed: 1, count: 4, params, selection: { taskIds: ['no-such-*'] } }, modelRef: 'builtin/oracle', dbPath }, threaded), (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error));
        errors.push(error);
        return true;
      });
      assert.deepEqual(storedRuns(dbPath), []);
    }
    assert.match(errors[0].message, /--task-id 'no-such-\*' matches no task/);
    assert.deepEqual([errors[0].code, errors[0].message], [errors[1].code, errors[1].message]);
  });

  test('a short stream is not handed on: its run has its size from the start', async () => {
    const { data, replay } = writeNestfulData(directory, 100);
    const params = resolveKnobs(nestfulSuite.id, nestfulSuite.knobs, { data }) as JsonObject;
    const events: RunProgressEvent[] = [];
    const summary = await run({ suite: nestfulSuite, recipe: { seed: 0, params }, modelRef: `replay/${replay}`, dbPath: join(directory, 'short.db') }, true, events);
    assert.equal(summary.passRate, 1);
    const start = events.find((event) => event.type === 'run-start');
    assert.deepEqual(start?.type === 'run-start' && [start.tasksImporting, start.totalEpisodes], [undefined, 100]);
    assert.equal(events.some((event) => event.type === 'run-planned'), false);
  });

  test('a replay run of a recipe known to make at most 6,144 tasks stores them on the run\'s thread; a longer one, or one of unknown length, is handed on after 2,048', async () => {
    const { data, replay } = writeNestfulData(directory, 6145);
    const params = resolveKnobs(nestfulSuite.id, nestfulSuite.knobs, { data }) as JsonObject;
    const importing = async (recipe: TaskRecipe, name: string): Promise<boolean | undefined> => {
      const events: RunProgressEvent[] = [];
      const tasks = selectTaskStream(streamGeneratedTasks(nestfulSuite, { seed: recipe.seed, count: recipe.count, params }), recipe.selection ?? {});
      const summary = await runEvaluation({
        suite: nestfulSuite, tasks, modelRef: `replay/${replay}`, seed: recipe.seed, params, dbPath: join(directory, `${name}.db`), taskRecipe: recipe,
        onProgress: (event) => events.push(event), allowMissingOutputs: false,
      });
      assert.equal(summary.passRate, 1);
      const start = events.find((event) => event.type === 'run-start');
      return start?.type === 'run-start' ? start.tasksImporting : undefined;
    };
    assert.equal(await importing({ seed: 0, count: 6144, params }, 'count-6144'), undefined);
    assert.equal(await importing({ seed: 0, count: 9000, params, selection: { limit: 3000 } }, 'limit-3000'), undefined);
    assert.equal(await importing({ seed: 0, count: 6145, params }, 'count-6145'), true);
    assert.equal(await importing({ seed: 0, params }, 'no-count'), true);
  });

  test('the import thread refuses a stream whose first tasks are not the ones the run stored', async () => {
    await withFakeRun('r1', async (store, suite, tasks) => {
      const stream = (async function* () { yield* tasks.slice(1); })();
      await assert.rejects(storeTasks(store, 'r1', suite, undefined, tasks[0], stream, { storedTaskIds: [tasks[0].id, 'fake-sum-other'] }), (error: unknown) =>
        error instanceof ConfigError && error.code === 'input.invalid' && /task 1 is now 'fake-sum-3-1', it was 'fake-sum-other'/.test(error.message));
      const short = (async function* () {})();
      await assert.rejects(storeTasks(store, 'r1', suite, undefined, tasks[0], short, { storedTaskIds: [tasks[0].id, tasks[1].id] }), /task 1 is now '\(none: the stream ended\)'/);
      // The same ids in the same order: only the rest is stored, at the ordinals after them.
      const rest = (async function* () { yield* tasks.slice(1); })();
      assert.deepEqual(await storeTasks(store, 'r1', suite, undefined, tasks[0], rest, { storedTaskIds: [tasks[0].id, tasks[1].id] }), { written: 4, ended: true });
      assert.deepEqual([...store.listTasksBetween('r1', 0, 3).keys()], [2, 3]);
    });
  });

  test('a stream started past the stored tasks is checked at its first task, and the ones it skipped still count as seen', async () => {
    await withFakeRun('r1b', async (store, suite, tasks) => {
      store.appendTasks('r1b', tasks.slice(0, 2).map(taskRow), 0);
      const stored = [tasks[0].id, tasks[1].id];
      // Started at stored task 1: the task there must be the stored one.
      await assert.rejects(storeTasks(store, 'r1b', suite, undefined, tasks[2], (async function* () {})(), { storedTaskIds: stored, streamFrom: 1 }), (error: unknown) =>
        error instanceof ConfigError && /task 1 is now 'fake-sum-3-2', it was 'fake-sum-3-1'/.test(error.message));
      // A task of the skipped prefix met again is a duplicate.
      const repeated = (async function* () { yield tasks[0]; })();
      await assert.rejects(storeTasks(store, 'r1b', suite, undefined, tasks[1], repeated, { storedTaskIds: stored, streamFrom: 1 }), /task id 'fake-sum-3-0' appears twice/);
      const rest = (async function* () { yield* tasks.slice(2); })();
      assert.deepEqual(await storeTasks(store, 'r1b', suite, undefined, tasks[1], rest, { storedTaskIds: stored, streamFrom: 1 }), { written: 4, ended: true });
      assert.deepEqual([...store.listTasksBetween('r1b', 0, 3).values()].map((task) => task.id), tasks.map((task) => task.id));
    });
  });

  test('the import thread of a new run starts its stream at the last stored task; a resumed run\'s, and a selection by id, at the first', () => {
    const job = { location: 'x.db', runId: 'r', suiteId: 'nestful', recipe: { seed: 0, params: {} }, storedTaskIds: ['a', 'b', 'c'] };
    assert.equal(importStreamStart({ ...job, justStored: true }), 2);
    assert.equal(importStreamStart({ ...job, justStored: false }), 0);
    assert.equal(importStreamStart({ ...job, justStored: true, recipe: { seed: 0, params: {}, selection: { limit: 9 } } }), 2);
    assert.equal(importStreamStart({ ...job, justStored: true, recipe: { seed: 0, params: {}, selection: { taskIds: ['a*'] } } }), 0);
  });

  test('a run stopped while its tasks were still being stored says so in its summary; without a recipe resume refuses it', async () => {
    await withFakeRun('r2', async (store, suite, tasks) => {
      store.appendTasks('r2', tasks.slice(0, 2).map(taskRow), 0);
      assert.equal(summarizeRun(store, 'r2', suite).tasksIncomplete, 'start-again');
      await assert.rejects(resumeEvaluation({ runId: 'r2', store, suite }), (error: unknown) =>
        error instanceof ConfigError && /stopped while its tasks were still being written \(2 stored\)/.test(error.message) && /start it again/.test(error.fix ?? ''));
      store.completeTasks('r2');
      assert.equal('tasksIncomplete' in summarizeRun(store, 'r2', suite), false);
    });
  });

  test('a run stopped while the thread imported its tasks is continued by resume: the rest stored once, the same tasks, episodes and summary', async () => {
    const { data, replay } = writeNestfulData(directory, 1500);
    const params = resolveKnobs(nestfulSuite.id, nestfulSuite.knobs, { data }) as JsonObject;
    const base = { suite: nestfulSuite, recipe: { seed: 0, params }, modelRef: `replay/${replay}`, trials: 2 };
    const dbPath = join(directory, 'stopped.db');
    // Stopped as the run starts: its first 128 tasks are stored, the thread has only begun on the rest.
    const stop = new AbortController();
    const stopped = await runEvaluation({
      suite: nestfulSuite, tasks: streamGeneratedTasks(nestfulSuite, { seed: 0, count: undefined, params }), modelRef: base.modelRef, seed: 0, params, dbPath, trials: 2, signal: stop.signal,
      taskRecipe: base.recipe, importThreadAfter: 128, onProgress: (event) => { if (event.type === 'run-start') stop.abort(); },
    });
    assert.equal(stopped.status, 'cancelled');
    assert.equal(stopped.tasksIncomplete, 'resumable');
    assert.ok(stopped.tasks >= 128 && stopped.tasks < 1500, `${stopped.tasks} tasks stored when it stopped`);
    const resumed = await resumeEvaluation({ runId: stopped.runId, dbPath });
    assert.equal(resumed.status, 'finished');
    assert.equal(resumed.episodes, 3000);
    assert.equal('tasksIncomplete' in resumed, false);
    const plain = await run({ ...base, dbPath: join(directory, 'unstopped.db') }, false);
    assert.deepEqual(comparable(resumed), comparable(plain));
    const [resumedRun] = storedRuns(dbPath);
    assert.equal(resumedRun.tasks, storedRuns(join(directory, 'unstopped.db'))[0].tasks);
    assert.deepEqual([resumedRun.episodes, resumedRun.complete], [3000, true]);
  });

  test('transformed tasks (--transform) have a recipe too: imported on the thread, and a run stopped while storing them is resumed to the same tasks', async () => {
    const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, { core: '4' }) as JsonObject;
    const transformTexts = ['perturb:kind=case-mix', 'drift:op=rename'];
    const transforms = transformTexts.map(parseTransformRequest);
    const recipe: TaskRecipe = { seed: 5, count: 600, params, transforms: transformTexts };
    const stream = (): AsyncIterable<Task> => streamGeneratedTasks(funcgenSuite, { seed: 5, count: 600, params, transforms });
    const dbPath = join(directory, 'transformed-stopped.db');
    const stop = new AbortController();
    const stopped = await runEvaluation({
      suite: funcgenSuite, tasks: stream(), modelRef: 'builtin/oracle', seed: 5, params, dbPath, signal: stop.signal,
      taskRecipe: recipe, importThreadAfter: 128, onProgress: (event) => { if (event.type === 'run-start') stop.abort(); },
    });
    assert.equal(stopped.tasksIncomplete, 'resumable');
    assert.ok(stopped.tasks >= 128 && stopped.tasks < 600, `${stopped.tasks} tasks stored when it stopped`);
    const store = openResultsStore(dbPath);
    assert.deepEqual(store.getRun(stopped.runId).provenance.taskRecipe?.transforms, transformTexts);
    store.close();
    const resumed = await resumeEvaluation({ runId: stopped.runId, dbPath });
    assert.deepEqual([resumed.status, resumed.episodes, resumed.passRate], ['finished', 600, 1]);
    // The same tasks as a run on one thread of the same stream: each derived from the task, the seed and the knobs.
    const plainPath = join(directory, 'transformed-plain.db');
    await runEvaluation({ suite: funcgenSuite, tasks: stream(), modelRef: 'builtin/oracle', seed: 5, params, dbPath: plainPath });
    const [resumedRun] = storedRuns(dbPath);
    const [plainRun] = storedRuns(plainPath);
    assert.equal(resumedRun.tasks, plainRun.tasks);
    assert.ok(resumedRun.tasks.startsWith('[{"schemaVersion":1,"id":"funcgen/5/0~perturb~drift"'), 'the stored tasks are the derived ones');
  });

  test('a resumed run whose data file changed is refused, naming the task, and keeps what it recorded', async () => {
    const { data, replay } = writeNestfulData(directory, 1200);
    const params = resolveKnobs(nestfulSuite.id, nestfulSuite.knobs, { data }) as JsonObject;
    const dbPath = join(directory, 'changed.db');
    const stop = new AbortController();
    const stopped = await runEvaluation({
      suite: nestfulSuite, tasks: streamGeneratedTasks(nestfulSuite, { seed: 0, count: undefined, params }), modelRef: `replay/${replay}`, seed: 0, params, dbPath, signal: stop.signal,
      taskRecipe: { seed: 0, params }, importThreadAfter: 128, onProgress: (event) => { if (event.type === 'run-start') stop.abort(); },
    });
    assert.equal(stopped.tasksIncomplete, 'resumable');
    const lines = readFileSync(data, 'utf8').split('\n');
    lines[5] = lines[5].replace('"sample_id": "s-5"', '"sample_id": "s-5-renamed"');
    writeFileSync(data, lines.join('\n'));
    const before = storedRuns(dbPath);
    await assert.rejects(resumeEvaluation({ runId: stopped.runId, dbPath }), (error: unknown) =>
      error instanceof ConfigError && /task 5 is now 'nestful\/s-5-renamed', it was 'nestful\/s-5'/.test(error.message));
    const after = storedRuns(dbPath);
    assert.equal(after.length, 1);
    assert.equal(after[0].tasks, before[0].tasks);
    // Episodes of the tasks already stored may have run before the refusal came: they are kept, as is every earlier one.
    assert.ok(after[0].episodes >= before[0].episodes);
    assert.equal(after[0].complete, false);
  });

  test('resume stores the rest of the tasks on the run\'s thread where no thread can open the store', async () => {
    const suite = createFakeSuite();
    const tasks = await generateTasks(suite, { seed: 3, count: 6, params: {} });
    const store = openResultsStore(':memory:');
    try {
      const recipe = { seed: 3, count: 6, params: {} };
      store.beginRun(sampleRun('r3', { trials: 1, provenance: { ...sampleRun('r3').provenance, trials: 1, taskRecipe: recipe } }));
      store.appendTasks('r3', tasks.slice(0, 2).map(taskRow), 0);
      assert.equal(summarizeRun(store, 'r3', suite).tasksIncomplete, 'resumable');
      // A hand-edited (or foreign) recipe is refused before anything is made from it, and the run is left as it was.
      store.beginRun(sampleRun('r4', { trials: 1, provenance: { ...sampleRun('r4').provenance, trials: 1, taskRecipe: { ...recipe, seed: 'x' as unknown as number } } }));
      store.appendTasks('r4', tasks.slice(0, 2).map(taskRow), 0);
      await assert.rejects(resumeEvaluation({ runId: 'r4', store, suite }), (error: unknown) =>
        error instanceof ConfigError && error.code === 'store.invalid' && /stored task recipe is invalid \(provenance\.taskRecipe\.seed: /.test(error.message));
      assert.deepEqual([store.listTaskIds('r4').length, store.listEpisodes('r4').length, store.hasAllTasks('r4')], [2, 0, false]);
      // A transform this ToolForge lacks is the record's fault: named as its field, with the way to start again.
      store.beginRun(sampleRun('r5', { trials: 1, provenance: { ...sampleRun('r5').provenance, trials: 1, taskRecipe: { ...recipe, transforms: ['identity', 'melt:x=1'] } } }));
      store.appendTasks('r5', tasks.slice(0, 2).map(taskRow), 0);
      await assert.rejects(resumeEvaluation({ runId: 'r5', store, suite }), (error: unknown) =>
        error instanceof ConfigError && error.code === 'store.invalid'
        && /stored task recipe is invalid \(provenance\.taskRecipe\.transforms\[1\]: no transform 'melt'; this ToolForge takes identity, rename-tools, drift, perturb\)/.test(error.message)
        && /start it again with the command that started it/.test(error.fix ?? ''));
      const resumed = await resumeEvaluation({ runId: 'r3', store, suite });
      assert.deepEqual([resumed.status, resumed.tasks, resumed.episodes, resumed.passRate], ['finished', 6, 6, 1]);
      assert.deepEqual(store.listTasks('r3').map((task) => task.id), tasks.map((task) => task.id));
    } finally {
      store.close();
    }
  });

  test('a hand-off point that is not a count is refused, naming the option', async () => {
    const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, {}) as JsonObject;
    for (const importThreadAfter of [-1, 1.5, Number.NaN]) {
      await assert.rejects(runEvaluation({
        suite: funcgenSuite, tasks: streamGeneratedTasks(funcgenSuite, { seed: 1, count: 2, params }), modelRef: 'builtin/oracle', seed: 1, params,
        dbPath: join(directory, 'bad-option.db'), taskRecipe: { seed: 1, count: 2, params }, importThreadAfter,
      }), (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid' && /importThreadAfter must be a non-negative integer/.test(error.message));
    }
  });

  test('is used only for a registered suite and a store another connection can open', () => {
    const store = openResultsStore(join(directory, 'check.db'));
    const memory = openResultsStore(':memory:');
    try {
      assert.equal(canImportOnThread(store, nestfulSuite), true);
      assert.equal(canImportOnThread(memory, nestfulSuite), false);
      // A suite defined by a library user is not in the thread's registry.
      assert.equal(canImportOnThread(store, createFakeSuite()), false);
    } finally {
      store.close();
      memory.close();
    }
  });

  test('errors keep their class, code, message and fix across the thread boundary', () => {
    const config = receiveError(transferError(new ConfigError('input.invalid', 'line 3: not JSON', { fix: 'each line is one sample' })));
    assert.ok(config instanceof ConfigError);
    assert.deepEqual([config.code, config.message, config.fix], ['input.invalid', 'line 3: not JSON\n  fix: each line is one sample', 'each line is one sample']);
    const provider = receiveError(transferError(new ProviderError('provider.rate-limited', 'slow down', { isRetryable: true, statusCode: 429 })));
    assert.ok(provider instanceof ProviderError);
    assert.deepEqual([provider.code, provider.isRetryable, provider.statusCode], ['provider.rate-limited', true, 429]);
    const plain = receiveError(transferError(new TypeError('boom')));
    assert.ok(!(plain instanceof ToolForgeError));
    assert.equal(plain.message, 'boom');
  });
});

test('forEachWithConcurrency takes an async source in order, waiting for items, with the bound kept', async () => {
  let released = (): void => {};
  const gate = new Promise<void>((resolve) => { released = resolve; });
  async function* items(): AsyncGenerator<number> {
    for (let item = 0; item < 10; item += 1) {
      if (item === 5) await gate;
      yield item;
    }
  }
  const started: number[] = [];
  let inFlight = 0;
  let most = 0;
  setTimeout(released, 20);
  await forEachWithConcurrency(items(), 3, async (item, index) => {
    assert.equal(item, index);
    started.push(item);
    inFlight += 1;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight -= 1;
  });
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(most, 3);
  // A source that fails stops the run with its error.
  async function* failing(): AsyncGenerator<number> {
    yield 1;
    throw new Error('source broke');
  }
  await assert.rejects(forEachWithConcurrency(failing(), 2, async () => {}), /source broke/);
});

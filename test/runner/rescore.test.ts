import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import type { Mode } from '../../src/core/mode.ts';
import type { Score } from '../../src/core/score.ts';
import { hasDataset } from '../../src/core/data-location.ts';
import type { LanguageModel } from '../../src/models/spec.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { rescoreRun } from '../../src/runner/rescore-run.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import type { Suite } from '../../src/suites/spec.ts';
import { counterSuite } from '../fixtures/counter-suite.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { liveHeapBytes, sampleRun, saveLargeRun, temporaryDirectory } from './test-helpers.ts';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The suite with every built-in model counting its generate calls. */
function countingSuite(suite: Suite, counter: { calls: number }): Suite {
  const count = (model: LanguageModel): LanguageModel => ({
    ...model,
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    generate(request) {
      counter.calls += 1;
      return model.generate(request);
    },
  });
  return {
    ...suite,
    builtinModels: Object.fromEntries(Object.entries(suite.builtinModels).map(([name, builtin]) => [name, { ...builtin, create: (episode) => count(builtin.create(episode)) }])),
  };
}

const scoresOf = (store: ResultsStore, runId: string) => store.listEpisodes(runId).map((episode) => ({ taskId: episode.taskId, trial: episode.trial, score: episode.score }));

const cases: { suite: () => Suite; model: string; mode: Mode; skip?: string | false }[] = [
  { suite: () => getSuite('funcgen'), model: 'builtin/random', mode: 'calls' },
  { suite: () => getSuite('funcgen'), model: 'builtin/oracle', mode: 'react' },
  { suite: () => getSuite('nestful'), model: 'builtin/random', mode: 'calls' },
  { suite: () => getSuite('nestful'), model: 'builtin/oracle', mode: 'sequence' },
  { suite: () => counterSuite, model: 'builtin/random', mode: 'code' },
  { suite: () => getSuite('webapi'), model: 'builtin/random', mode: 'code', skip: hasDataset('wapiibench') ? false : 'needs ../shared/data (absent)' },
];

describe('rescore', () => {
  for (const item of cases) {
    test(`${item.suite().id} ${item.model} ${item.mode}: re-scoring a stored run gives identical scores with 0 model calls, as a new linked run`, { skip: item.skip }, async () => {
      const counter = { calls: 0 };
      const suite = countingSuite(item.suite(), counter);
      const params = resolveKnobs(suite.id, suite.knobs, {});
      const tasks = await generateTasks(suite, { seed: 3, count: 3, params, validate: false });
      const store = openResultsStore(':memory:');
      try {
        const original = await runEvaluation({ suite, tasks, modelRef: item.model, mode: item.mode, trials: 2, seed: 3, params, store, concurrency: 2 });
        const callsBefore = counter.calls;
        assert.ok(callsBefore >= 6);
        const rescored = await rescoreRun({ runId: original.runId, store, suite });
        assert.equal(counter.calls, callsBefore, 'rescore called a model');
        assert.notEqual(rescored.runId, original.runId);
        assert.equal(store.getRun(rescored.runId).provenance.rescoredFrom, original.runId);
        assert.deepEqual(scoresOf(store, rescored.runId), scoresOf(store, original.runId));
        assert.deepEqual(rescored.metrics, original.metrics);
        assert.equal(rescored.passRate, original.passRate);
      } finally {
        store.close();
      }
    });
  }

  test('an export from before end states were kept imports, and re-scoring it is refused with a ConfigError naming the episode', async () => {
    const suite = getSuite('funcgen');
    const params = resolveKnobs(suite.id, suite.knobs, {});
    const tasks = await generateTasks(suite, { seed: 6, count: 2, params, validate: false });
    const store = openResultsStore(':memory:');
    const older = openResultsStore(':memory:');
    try {
      const run = await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', mode: 'calls', seed: 6, params, store });
      const oldExport = store.exportRun(run.runId).trimEnd().split('\n').map((line) => {
        const entry = JSON.parse(line) as { type: string; episode?: Record<string, unknown> };
        if (entry.episode) for (const field of ['finalState', 'calls', 'warnings']) delete entry.episode[field];
        return JSON.stringify(entry);
      }).join('\n');
      const imported = older.importRun(oldExport);
      assert.deepEqual(older.listEpisodes(imported.id).map((episode) => [episode.finalState, episode.calls, episode.score?.passed]), [[null, [], true], [null, [], true]]);
      await assert.rejects(rescoreRun({ runId: imported.id, store: older }), (error: unknown) => error instanceof ConfigError && error.code === 'input.invalid'
        && error.message.includes(`episode ${tasks[0].id} trial 0 cannot be re-scored`) && /store schema 1/.test(error.message));
    } finally {
      store.close();
      older.close();
    }
  });

  test('a task edited in the database is refused naming the run and the task, and the failed rescore leaves no half-scored run', async () => {
    const suite = getSuite('funcgen');
    const params = resolveKnobs(suite.id, suite.knobs, {});
    const tasks = await generateTasks(suite, { seed: 9, count: 3, params, validate: false });
    const path = join(temporaryDirectory(), 'edited.db');
    const run = await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', mode: 'calls', seed: 9, params, dbPath: path, concurrency: 1 });
    const database = new Database(path);
    const row = database.prepare('SELECT task FROM run_tasks WHERE run_id = ? AND ordinal = 1').get(run.runId) as { task: string };
    const task = JSON.parse(row.task) as { expected: { target: { value: number } } };
    task.expected.target.value += 1;
    database.prepare('UPDATE run_tasks SET task = ? WHERE run_id = ? AND ordinal = 1').run(JSON.stringify(task), run.runId);
    database.close();
    const store = openResultsStore(path);
    try {
      await assert.rejects(rescoreRun({ runId: run.runId, store }), (error: unknown) => error instanceof ConfigError && error.code === 'store.invalid'
        && error.message.includes(`run '${run.runId}': its stored task 1`) && /target/.test(error.message) && !/store schema 1/.test(error.fix ?? ''));
      assert.deepEqual(store.listRuns().map((stored) => stored.id), [run.runId], 'the failed rescore is not kept');
    } finally {
      store.close();
    }
  });

  test('after a deliberate scorer change, rescore gives the new scores without a model call', async () => {
    const counter = { calls: 0 };
    const suite = countingSuite(getSuite('funcgen'), counter);
    const params = resolveKnobs(suite.id, suite.knobs, {});
    const tasks = await generateTasks(suite, { seed: 4, count: 3, params, validate: false });
    const store = openResultsStore(':memory:');
    try {
      const original = await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', mode: 'calls', seed: 4, params, store, concurrency: 1 });
      assert.equal(original.passRate, 1);
      const callsBefore = counter.calls;
      // The changed scorer: half credit, and it reads the stored call record to say how many calls there were.
      const stricter: Suite = {
        ...suite,
        async score(input): Promise<Score> {
          const score = await suite.score(input);
          const toolCalls = input.calls.filter((call) => call.type === 'tool').length;
          return { ...score, value: score.value / 2, reason: `half credit after ${toolCalls} calls` };
        },
      };
      const rescored = await rescoreRun({ runId: original.runId, store, suite: stricter });
      assert.equal(counter.calls - callsBefore, 0);
      const before = store.listEpisodes(original.runId);
      const after = store.listEpisodes(rescored.runId);
      assert.deepEqual(after.map((episode) => episode.score?.value), [0.5, 0.5, 0.5]);
      after.forEach((episode, index) => {
        const toolCalls = before[index].calls.filter((call) => call.type === 'tool').length;
        assert.ok(toolCalls > 0);
        assert.equal(episode.score?.reason, `half credit after ${toolCalls} calls`);
      });
      assert.equal(rescored.metrics.meanScore, 0.5);
    } finally {
      store.close();
    }
  });

  test('re-scoring reads the old run a page at a time: the live heap grows by a small part of its transcripts, and every episode is re-scored', async () => {
    // 3,000 episodes with ~8 KB transcripts: ~24 MB decoded; listing them all grows the heap by more than that.
    const suite = createFakeSuite();
    const tasks = await suite.generate({ seed: 5, count: 1500, params: {} });
    const store = openResultsStore(':memory:');
    try {
      saveLargeRun(store, sampleRun('run-large', { trials: 2 }), tasks, 8000);
      let scored = 0;
      let transcriptChars = 0;
      let growth = 0;
      const baseline = liveHeapBytes();
      const measuring: Suite = {
        ...suite,
        score(input) {
          scored += 1;
          transcriptChars += JSON.stringify(input.messages).length;
          if (scored % 500 === 0) growth = Math.max(growth, liveHeapBytes() - baseline);
          return suite.score(input);
        },
      };
      const rescored = await rescoreRun({ runId: 'run-large', store, suite: measuring });
      assert.equal(scored, 3000);
      assert.ok(transcriptChars > 20 * 1_048_576);
      assert.ok(growth < transcriptChars / 4, `re-scoring ${(transcriptChars / 1_048_576).toFixed(1)} MB of transcripts grew the live heap by ${(growth / 1_048_576).toFixed(1)} MB`);
      assert.equal(rescored.passRate, 1);
      assert.deepEqual(store.countEpisodes(rescored.runId), { scored: 3000, 'infrastructure-error': 0, cancelled: 0 });
      assert.deepEqual(store.listTaskIds(rescored.runId), tasks.map((task) => task.id));
      assert.equal(store.hasAllTasks(rescored.runId), true);
    } finally {
      store.close();
    }
  });
});

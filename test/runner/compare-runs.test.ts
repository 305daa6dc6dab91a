import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createScriptedModel } from '../../src/models/builtin/scripted-model.ts';
import { compareRuns } from '../../src/runner/compare-runs.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { summarizeRun } from '../../src/runner/summarize-run.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { BuiltinModel } from '../../src/suites/spec.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';

test('compareRuns pairs two stored runs per task by pass rate over trials', async () => {
  const base = createFakeSuite();
  const tasks = await base.generate({ seed: 8, count: 4, params: {} });
  // Passes trial 0 only of tasks 0 and 1: per-task rates 0.5, 0.5, 0, 0 against the oracle's 1, 1, 1, 1.
  const half: BuiltinModel = {
    description: 'passes the first trial of the first two tasks',
    create: (episode) => (episode.trial === 0 && [tasks[0].id, tasks[1].id].includes(episode.task.id)
      ? base.builtinModels.oracle.create(episode)
      : createScriptedModel({ modelId: 'half', mode: episode.mode, policy: () => ({ type: 'answer', text: 'no idea' }) })),
  };
  const suite = createFakeSuite({ extraModels: { half } });
  const store = openResultsStore(':memory:');
  const common = { suite, tasks, trials: 2, seed: 8, params: {}, store };
  const oracleRun = await runEvaluation({ ...common, modelRef: 'builtin/oracle' });
  const halfRun = await runEvaluation({ ...common, modelRef: 'builtin/half' });
  const comparison = compareRuns(store, oracleRun.runId, halfRun.runId, { seed: 1 });
  assert.equal(comparison.pairs, 4);
  assert.equal(comparison.baselineMean, 1);
  assert.equal(comparison.treatmentMean, 0.25);
  assert.equal(comparison.meanDifference, -0.75);
  assert.deepEqual(comparison.signTest, { improved: 0, worsened: 4, ties: 0, pValue: 2 / 16 });
  assert.ok(comparison.differenceCI95[1] <= -0.5 && comparison.differenceCI95[0] >= -1);
  assert.deepEqual(compareRuns(store, oracleRun.runId, halfRun.runId, { seed: 1 }), comparison);
  // A pair key maps differently named tasks onto each other; here every task collapses to one key.
  const collapsed = compareRuns(store, oracleRun.runId, halfRun.runId, { pairKey: () => 'all' });
  assert.equal(collapsed.pairs, 1);
  assert.equal(collapsed.treatmentMean, 2 / 8);
});

test('summarizeRun without the suite (e.g. an imported run of a suite not installed) omits suite metrics only', async () => {
  const suite = createFakeSuite();
  const tasks = await suite.generate({ seed: 8, count: 2, params: {} });
  const store = openResultsStore(':memory:');
  const run = await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', seed: 8, params: {}, store });
  const bare = summarizeRun(store, run.runId);
  assert.equal(bare.passRate, 1);
  assert.equal(bare.metrics.meanToolCalls, undefined);
  assert.deepEqual(bare.tables, []);
  assert.equal(run.metrics.meanToolCalls, 1);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { compareWithFirstRuns, comparisonTable } from '../../src/report/run-comparisons.ts';

test('later runs are paired with the first run of their suite, on identical tasks only', async () => {
  const dbPath = join(mkdtempSync(join(tmpdir(), 'toolforge-compare-')), 'results.db');
  const suite = getSuite('funcgen');
  const run = async (model: string, knobs: Record<string, string>): Promise<string> => {
    const params = resolveKnobs(suite.id, suite.knobs, knobs);
    const tasks = await generateTasks(suite, { seed: 0, count: 3, params, validate: false });
    return (await runEvaluation({ suite, tasks, modelRef: model, seed: 0, params, dbPath })).runId;
  };
  const oracle = await run('builtin/oracle', {});
  const random = await run('builtin/random', {});
  // Same task ids (funcgen/0/0..2), other knobs, so other tasks: nothing to pair.
  const otherKnobs = await run('builtin/oracle', { core: '6' });
  const store = openResultsStore(dbPath);
  try {
    const comparisons = compareWithFirstRuns(store, [oracle, random, otherKnobs]);
    assert.equal(comparisons.length, 1);
    const [{ suite: suiteId, comparison }] = comparisons;
    assert.equal(suiteId, 'funcgen');
    assert.equal(comparison.baselineRunId, oracle);
    assert.equal(comparison.treatmentRunId, random);
    assert.equal(comparison.pairs, 3);
    assert.equal(comparison.meanDifference, -1);
    // Exact sign test: 3 of 3 pairs worse, two-sided p = 2 / 2^3.
    const { pValue, ...counts } = comparison.signTest;
    assert.deepEqual(counts, { improved: 0, worsened: 3, ties: 0 });
    assert.ok(Math.abs(pValue - 0.25) < 1e-12, `p = ${pValue}`);
    assert.deepEqual(comparisonTable(comparisons).rows[0].slice(3), [3, '100.0%', '0.0%', '-100.0%', '[-100.0%, -100.0%]', '0 / 3 / 0', '0.25', '4']);
    // McNemar sizing: 3 discordant of 3 (ψ = 1, δ = -1): n = z_0.975² = 3.84 -> 4 tasks.
    assert.deepEqual(comparisons[0].trialsNeeded, { pairs: 3, bothPassed: 0, bothFailed: 0, baselineOnly: 3, treatmentOnly: 0, needed: 4 });
  } finally {
    store.close();
  }
});

test('each run\'s tasks are read once however many runs a report compares (a digest hashes the whole task)', async () => {
  const dbPath = join(mkdtempSync(join(tmpdir(), 'toolforge-compare-reads-')), 'results.db');
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, {});
  const tasks = await generateTasks(suite, { seed: 0, count: 3, params, validate: false });
  const runIds: string[] = [];
  for (const model of ['builtin/oracle', 'builtin/random', 'builtin/planner', 'builtin/random']) {
    runIds.push((await runEvaluation({ suite, tasks, modelRef: model, seed: 0, params, dbPath })).runId);
  }
  const store = openResultsStore(dbPath);
  try {
    const reads = new Map<string, number>();
    const counting = Object.create(store) as typeof store;
    counting.iterateTasks = (runId) => {
      reads.set(runId, (reads.get(runId) ?? 0) + 1);
      return store.iterateTasks(runId);
    };
    const comparisons = compareWithFirstRuns(counting, runIds);
    assert.deepEqual(comparisons.map(({ comparison }) => [comparison.baselineRunId, comparison.treatmentRunId]), runIds.slice(1).map((runId) => [runIds[0], runId]));
    assert.deepEqual([...reads.values()], [1, 1, 1, 1]);
    // The same figures as comparing each pair on its own.
    assert.deepEqual(comparisons.map(({ comparison }) => comparison), runIds.slice(1).map((runId) => compareWithFirstRuns(store, [runIds[0], runId])[0].comparison));
  } finally {
    store.close();
  }
});

test('runs of 1 and 3 trials: the tasks-needed cell says it pairs only the first trial of each task', async () => {
  const dbPath = join(mkdtempSync(join(tmpdir(), 'toolforge-trials-')), 'results.db');
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, {});
  const tasks = await generateTasks(suite, { seed: 0, count: 3, params, validate: false });
  const one = (await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', seed: 0, params, dbPath })).runId;
  const three = (await runEvaluation({ suite, tasks, modelRef: 'builtin/random', seed: 0, params, dbPath, trials: 3 })).runId;
  const store = openResultsStore(dbPath);
  try {
    const comparisons = compareWithFirstRuns(store, [one, three]);
    assert.deepEqual(comparisons[0].trials, [1, 3]);
    assert.equal(comparisons[0].trialsNeeded?.pairs, 3);
    assert.equal(comparisonTable(comparisons).rows[0].at(-1), '4 (from the first trial of each task: the runs have 1 and 3)');
  } finally {
    store.close();
  }
});

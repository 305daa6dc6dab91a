import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { summarizeRun } from '../../src/runner/summarize-run.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import type { Suite } from '../../src/suites/spec.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';

/** The store, counting the reads of a run's episodes. */
function countingReads(store: ResultsStore): { store: ResultsStore; reads: () => number } {
  let reads = 0;
  return {
    store: { ...store, iterateScores: (...input: Parameters<ResultsStore['iterateScores']>) => { reads += 1; return store.iterateScores(...input); } },
    reads: () => reads,
  };
}

test('a run summary reads the episodes once, its own figures taken while the suite summary reads them; a suite that reads part or none still gets them right', async () => {
  const base = createFakeSuite();
  // Passes every first trial and fails every second: pass@k, pass^k, failures and the mean all have something to say.
  const alternating = {
    description: 'the oracle on trial 0, a wrong answer on trial 1',
    create: (episode: Parameters<typeof base.builtinModels.oracle.create>[0]) => (episode.trial === 0 ? base.builtinModels.oracle : base.builtinModels.wrong).create(episode),
  };
  const suite = createFakeSuite({ extraModels: { alternating } });
  const tasks = await suite.generate({ seed: 5, count: 7, params: {} });
  const store = openResultsStore(':memory:');
  try {
    const { runId } = await runEvaluation({ suite, tasks, modelRef: 'builtin/alternating', trials: 2, seed: 5, params: {}, store });
    const counted = countingReads(store);
    const summary = summarizeRun(counted.store, runId, suite);
    assert.equal(counted.reads(), 1);
    assert.deepEqual([summary.episodes, summary.passed, summary.passRate, summary.metrics.passAt2, summary.metrics.passHat2, summary.failures['result.wrong']], [14, 7, 0.5, 1, 0, 7]);
    const readsPart: Suite = { ...suite, summarize: (episodes) => { for (const episode of episodes) { void episode; break; } return { metrics: {}, tables: [] }; } };
    const readsNone: Suite = { ...suite, summarize: () => ({ metrics: {}, tables: [] }) };
    for (const other of [readsPart, readsNone]) {
      const again = countingReads(store);
      const { metrics, tables, ...figures } = summarizeRun(again.store, runId, other);
      const { metrics: expectedMetrics, tables: _tables, ...expected } = summary;
      assert.deepEqual(figures, expected);
      assert.deepEqual(metrics, { meanScore: expectedMetrics.meanScore, scoreStandardDeviation: expectedMetrics.scoreStandardDeviation, passAt1: expectedMetrics.passAt1, passAt2: 1, passHat1: expectedMetrics.passHat1, passHat2: 0 });
      assert.deepEqual(tables, []);
      assert.equal(again.reads(), other === readsPart ? 2 : 1);
    }
  } finally {
    store.close();
  }
});

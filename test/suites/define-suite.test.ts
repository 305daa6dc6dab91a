/**
 * defineSuite checks score details against the suite's detailsSchema where they cross a boundary: a scorer that
 * returns details of the wrong shape is a bug in the suite (an infrastructure error, never a stored score), and
 * stored details that break the schema (a run scored by another version of the suite) are refused by name when a
 * report summarizes them, and mended by re-scoring the run.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { ConfigError, ToolForgeError } from '../../src/core/errors.ts';
import { rescoreRun } from '../../src/runner/rescore-run.ts';
import { resolveModelSource } from '../../src/runner/resolve-model-source.ts';
import { runEpisode } from '../../src/runner/run-episode.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { summarizeRun } from '../../src/runner/summarize-run.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { defineSuite } from '../../src/suites/define-suite.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';

describe('defineSuite: details checked against detailsSchema', () => {
  test('a scorer returning details of another shape fails the episode as suite.invalid-details, naming suite, task and field', async () => {
    const fake = createFakeSuite();
    // The fake suite with a schema its scorer breaks: it counts one call, the schema wants a negative count.
    const broken = defineSuite({ ...fake, detailsSchema: z.object({ toolCalls: z.number().negative() }), summarize: () => ({ metrics: {}, tables: [] }) });
    const [task] = await fake.generate({ seed: 3, count: 1, params: {} });
    await assert.rejects(runEpisode({ suite: broken, task, trial: 0, mode: 'calls', model: resolveModelSource(broken, 'builtin/oracle') }), (error: unknown) =>
      error instanceof ToolForgeError && !(error instanceof ConfigError) && error.code === 'suite.invalid-details'
      && error.message.includes(`suite 'fake-sum' scored task '${task.id}'`) && error.message.includes('details.toolCalls:'));
    // Through the runner: recorded as an infrastructure error, never as a score.
    const store = openResultsStore(':memory:');
    try {
      const summary = await runEvaluation({ suite: broken, tasks: [task], modelRef: 'builtin/oracle', mode: 'calls', seed: 3, params: {}, store });
      assert.deepEqual([summary.episodes, summary.infrastructureErrors], [0, 1]);
      const [episode] = store.listEpisodes(summary.runId);
      assert.deepEqual([episode.status, episode.score, episode.error?.code], ['infrastructure-error', null, 'suite.invalid-details']);
    } finally {
      store.close();
    }
  });

  test('stored details that break the schema: the report refuses them naming task, trial and field; rescore mends the run', async () => {
    const suite = createFakeSuite();
    const tasks = await suite.generate({ seed: 5, count: 3, params: {} });
    const store = openResultsStore(':memory:');
    try {
      const good = await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', mode: 'calls', seed: 5, params: {}, store });
      assert.equal(good.metrics.meanToolCalls, 1);
      // The same episodes as an older scorer might have stored them: the call count as text on the second task.
      const old = store.getRun(good.runId);
      store.createRun({ ...old, id: 'run-old-details', createdAt: '2026-01-01T00:00:00.000Z' }, tasks);
      store.saveEpisodes(store.listEpisodes(good.runId).map((episode) => ({
        ...episode, runId: 'run-old-details',
        ...(episode.taskId === tasks[1].id && episode.score ? { score: { ...episode.score, details: { toolCalls: 'one' } } } : {}),
      })));
      store.setRunStatus('run-old-details', 'finished');
      assert.throws(() => summarizeRun(store, 'run-old-details', suite), (error: unknown) =>
        error instanceof ConfigError && error.code === 'store.invalid'
        && error.message.includes(`the stored score of task '${tasks[1].id}' trial 0 does not have fake-sum details: details.toolCalls:`)
        && error.message.includes("re-score the run with 'toolforge rescore <run>'"));
      const rescored = await rescoreRun({ runId: 'run-old-details', suite, store });
      assert.deepEqual([rescored.episodes, rescored.passRate, rescored.metrics.meanToolCalls], [3, 1, 1]);
    } finally {
      store.close();
    }
  });
});

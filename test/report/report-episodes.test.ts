import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { EpisodeRecord } from '../../src/core/episode.ts';
import { renderCsv } from '../../src/report/render-csv.ts';
import { episodesInTaskIdOrder, scoredDurations, storedReportEpisodes } from '../../src/report/report-episodes.ts';
import { runCosts } from '../../src/report/run-costs.ts';
import type { RunReport } from '../../src/report/run-report.ts';
import { taskResults } from '../../src/report/task-results.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { sampleEpisode, sampleRun, temporaryDirectory } from '../runner/test-helpers.ts';

test('a stored run read a page at a time reports exactly what the array of its episodes reports', async () => {
  const generated = await createFakeSuite().generate({ seed: 7, count: 4, params: {} });
  // Store order, code-unit order and localeCompare order all differ for these ids.
  const ids = ['b', 'a_1', 'B', 'a-1'];
  const tasks = generated.map((task, index) => ({ ...task, id: ids[index] }));
  const store = openResultsStore(join(temporaryDirectory(), 'results.db'));
  try {
    store.createRun(sampleRun('run-s', { trials: 3 }), tasks);
    const episodes: EpisodeRecord[] = [];
    tasks.forEach((task, index) => {
      for (let trial = 0; trial < 3; trial += 1) {
        const value = ((index + 1) * (trial + 2)) % 7 / 7;
        episodes.push(trial === 2 && index === 1
          ? sampleEpisode('run-s', task.id, trial, { status: 'infrastructure-error', termination: null, score: null, error: { code: 'provider.server-error', message: 'HTTP 503, "busy"' }, durationMs: 1 })
          : sampleEpisode('run-s', task.id, trial, {
            score: value > 0.5 ? { value, passed: true, reason: 'ok' } : { value, passed: false, reason: 'no', ...(trial === 0 ? { failure: 'tool.unknown' as const } : {}) },
            durationMs: 100 * ((index * 5 + trial * 3) % 8), usage: { inputTokens: index * 10 + trial, outputTokens: trial },
          }));
      }
    });
    store.saveEpisodes(episodes);
    const stored = storedReportEpisodes(store, 'run-s');
    const array = store.listEpisodeOutcomes('run-s');
    const summary = {
      runId: 'run-s', suite: 'fake-sum', model: 'builtin/oracle', mode: 'calls', tasks: 4, trials: 3, episodes: 11, infrastructureErrors: 1,
      passRate: 0.5, passRateCI95: [0, 1], metrics: {}, failures: {}, tables: [],
    };
    const report = (source: RunReport['episodes']): RunReport => ({ summary, startedAt: null, episodes: source });
    assert.deepEqual([...stored], array);
    assert.deepEqual([...episodesInTaskIdOrder(stored)].map((episode) => `${episode.taskId}#${episode.trial}`),
      ['a_1#0', 'a_1#1', 'a_1#2', 'a-1#0', 'a-1#1', 'a-1#2', 'b#0', 'b#1', 'b#2', 'B#0', 'B#1', 'B#2']);
    assert.equal(renderCsv([report(stored)]), renderCsv([report(array)]));
    assert.deepEqual(taskResults(stored), taskResults(array));
    assert.deepEqual(runCosts(report(stored)), runCosts(report(array)));
    const sortedStored = scoredDurations(stored);
    const sortedArray = scoredDurations(array);
    assert.equal(sortedStored.count, 11);
    const ranks = Array.from({ length: 11 }, (_, rank) => rank);
    assert.deepEqual(sortedStored.valuesAt(ranks), sortedArray.valuesAt(ranks));
    assert.deepEqual(sortedStored.valuesAt([10, 0, 10]), [...sortedArray.valuesAt([10, 0]), sortedArray.valuesAt([10])[0]]);
  } finally {
    store.close();
  }
});

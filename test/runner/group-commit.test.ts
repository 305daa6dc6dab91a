import { describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { forEachWithConcurrency } from '../../src/runner/bounded-concurrency.ts';
import { createGroupCommit } from '../../src/runner/group-commit.ts';
import { summarizeRun } from '../../src/runner/summarize-run.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { sampleEpisode, sampleRun } from './test-helpers.ts';

const tasks = await createFakeSuite().generate({ seed: 7, count: 3, params: {} });

/** A real in-memory store whose group writes are recorded (batch sizes, in order). */
function countingStore(): { store: ResultsStore; batches: number[] } {
  const store = openResultsStore(':memory:');
  const batches: number[] = [];
  const saveEpisodes = store.saveEpisodes.bind(store);
  store.saveEpisodes = (episodes) => {
    batches.push(episodes.length);
    return saveEpisodes(episodes);
  };
  return { store, batches };
}

describe('group commit', () => {
  test('writes a full batch at once, and what is left after the delay, in one transaction each', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const { store, batches } = countingStore();
      store.createRun(sampleRun('run-g'), tasks);
      const commits = createGroupCommit(store, { maxBatch: 2, maxDelayMs: 100 });
      commits.add(sampleEpisode('run-g', tasks[0].id, 0));
      assert.deepEqual(batches, []);
      commits.add(sampleEpisode('run-g', tasks[1].id, 0));
      assert.deepEqual(batches, [2]);
      commits.add(sampleEpisode('run-g', tasks[2].id, 0));
      mock.timers.tick(99);
      assert.deepEqual(batches, [2]);
      assert.equal(store.listEpisodeKeys('run-g').length, 2, 'the third episode waits for the timer');
      mock.timers.tick(1);
      assert.deepEqual(batches, [2, 1]);
      assert.equal(store.listEpisodeKeys('run-g').length, 3);
      commits.close();
      assert.deepEqual(batches, [2, 1], 'nothing left to write');
      store.close();
    } finally {
      mock.timers.reset();
    }
  });

  test('close writes the buffer; a scored row is still never replaced inside a batch', () => {
    const { store, batches } = countingStore();
    store.createRun(sampleRun('run-h'), tasks);
    store.saveEpisode(sampleEpisode('run-h', tasks[0].id, 0));
    const commits = createGroupCommit(store, { maxBatch: 10, maxDelayMs: 60_000 });
    commits.add(sampleEpisode('run-h', tasks[0].id, 0, { score: { value: 0, passed: false, reason: 'late duplicate' } }));
    commits.add(sampleEpisode('run-h', tasks[1].id, 0));
    commits.close();
    assert.deepEqual(batches, [2]);
    assert.deepEqual(store.saveEpisodes([sampleEpisode('run-h', tasks[2].id, 0), sampleEpisode('run-h', tasks[1].id, 0)]), [true, false]);
    const episodes = store.listEpisodes('run-h');
    assert.equal(episodes.length, 3);
    assert.equal(episodes[0].score?.passed, true, 'the first scored row stays');
    store.close();
  });

  test('a failed timed write is rethrown by the next add', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const { store } = countingStore();
      store.createRun(sampleRun('run-i'), tasks);
      const commits = createGroupCommit(store, { maxBatch: 10, maxDelayMs: 100 });
      // An episode of a run that does not exist breaks the foreign key.
      commits.add(sampleEpisode('no-such-run', tasks[0].id, 0));
      mock.timers.tick(100);
      assert.throws(() => commits.add(sampleEpisode('run-i', tasks[0].id, 0)), /FOREIGN KEY/);
      store.close();
    } finally {
      mock.timers.reset();
    }
  });
});

test('summarizeRun reads scores only: a run whose transcripts are unreadable still summarizes', () => {
  const store = openResultsStore(':memory:');
  store.createRun(sampleRun('run-s'), tasks);
  store.saveEpisodes([
    sampleEpisode('run-s', tasks[0].id, 0),
    sampleEpisode('run-s', tasks[1].id, 0, { score: { value: 0, passed: false, reason: 'no', failure: 'result.wrong', details: { toolCalls: 0 } } }),
  ]);
  // listEpisodes would fail on these rows: the summary must not read them.
  store.listEpisodes = () => { throw new Error('summaries must not load transcripts'); };
  const summary = summarizeRun(store, 'run-s', createFakeSuite());
  assert.equal(summary.episodes, 2);
  assert.equal(summary.passed, 1);
  assert.equal(summary.missingEpisodes, 4, '3 tasks x 2 trials, 2 stored');
  assert.deepEqual(summary.failures['result.wrong'], 1);
  store.close();
});

test('forEachWithConcurrency reads a generator lazily: never more than the in-flight items ahead', async () => {
  let taken = 0;
  let finished = 0;
  let mostAhead = 0;
  function* items(): Generator<number> {
    for (let index = 0; index < 20; index += 1) {
      taken += 1;
      mostAhead = Math.max(mostAhead, taken - finished);
      yield index;
    }
  }
  const seen: number[] = [];
  await forEachWithConcurrency(items(), 3, async (item, index) => {
    assert.equal(item, index);
    await Promise.resolve();
    seen.push(item);
    finished += 1;
  });
  assert.equal(seen.length, 20);
  assert.equal(mostAhead, 3);
});

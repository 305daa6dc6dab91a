/**
 * Issue 14, item 5: `--episode-timeout` (runEvaluation's `episodeTimeoutMs`) overrides every task's own time
 * limit. A model that takes 400 ms per turn passes within the tasks' 30 s limit, and is stopped at the time limit
 * and scored (a model failure on attempt 1, not an infrastructure error) when the override is 150 ms. (The fake
 * suite scores any wrong answer as result.wrong; real suites map the time-limit termination to limit.exceeded.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { taskSchema } from '../../src/core/task.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { temporaryDirectory } from './test-helpers.ts';

test('--episode-timeout overrides the tasks\' time limit: the same slow model passes without it and is stopped at the time limit and scored with it', async () => {
  const suite = createFakeSuite({ slowDelayMs: 400 });
  const tasks = await suite.generate({ seed: 3, count: 2, params: {} });
  assert.ok(tasks.every((task) => task.limits.timeLimitMs === 30_000), 'the tasks allow 30 s');
  const directory = temporaryDirectory();
  const common = { suite, tasks, modelRef: 'builtin/slow', trials: 1, concurrency: 2, seed: 3, params: {} };

  const plain = await runEvaluation({ ...common, dbPath: join(directory, 'plain.db') });
  assert.equal(plain.episodes, 2);
  assert.equal(plain.passRate, 1);

  const dbPath = join(directory, 'short.db');
  const short = await runEvaluation({ ...common, dbPath, episodeTimeoutMs: 150 });
  assert.equal(short.episodes, 2);
  assert.equal(short.infrastructureErrors, 0);
  assert.equal(short.passRate, 0);
  const store = openResultsStore(dbPath);
  try {
    const episodes = store.listEpisodes(short.runId);
    assert.deepEqual(episodes.map((episode) => [episode.status, episode.termination, episode.score?.passed, episode.attempts]),
      [['scored', 'time-limit', false, 1], ['scored', 'time-limit', false, 1]]);
  } finally {
    store.close();
  }
});

test('a time limit or timeout past what a Node timer holds, and settings no provider takes, are config.invalid from the library, before a run is stored', async () => {
  const suite = createFakeSuite();
  const tasks = await suite.generate({ seed: 3, count: 1, params: {} });
  const dbPath = join(temporaryDirectory(), 'results.db');
  const common = { suite, tasks, modelRef: 'builtin/oracle', seed: 3, params: {}, dbPath };
  for (const [options, pattern] of [
    [{ episodeTimeoutMs: 2 ** 31 }, /the episode timeout must be a whole number of ms from 1 to 2147483647 \(24\.8 days: a longer timer fires at once\), got 2147483648/],
    [{ retry: { timeoutMs: 3e9 } }, /the request timeout must be a whole number of ms from 1 to 2147483647/],
    [{ episodeTimeoutMs: 0.5 }, /the episode timeout must be a whole number of ms/],
  ] as const) {
    await assert.rejects(runEvaluation({ ...common, ...options }), (error: Error & { code?: string }) => error.code === 'config.invalid' && pattern.test(error.message), String(pattern));
  }
  // Settings every provider refuses are refused once, not as an error in every episode.
  for (const [settings, pattern] of [
    [{ temperature: -1 }, /settings\.temperature: .*\n {2}fix: pass --temperature <t> with t >= 0/],
    [{ topP: 1.5 }, /settings\.topP: /],
    [{ maxOutputTokens: 0 }, /settings\.maxOutputTokens: .*\n {2}fix: pass --max-output-tokens <n> with n >= 1/],
    [{ temprature: 0.2 }, /settings\.temprature: .*\n {2}fix: settings takes temperature/],
  ] as const) {
    await assert.rejects(runEvaluation({ ...common, settings: settings as never }), (error: Error & { code?: string }) => error.code === 'config.invalid' && pattern.test(error.message), String(pattern));
  }
  // A task whose own limit is past it is refused where tasks are checked, naming the field.
  const long = { ...tasks[0], limits: { ...tasks[0].limits, timeLimitMs: 3e9 } };
  assert.equal(taskSchema.safeParse(long).success, false);
  assert.match(JSON.stringify(taskSchema.safeParse(long).error?.issues), /limits.*timeLimitMs.*a longer timer fires at once/);
  const store = openResultsStore(dbPath);
  try {
    assert.equal(store.listRuns().length, 0, 'nothing was stored');
  } finally {
    store.close();
  }
});

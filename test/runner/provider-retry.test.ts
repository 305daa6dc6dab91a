import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { startOpenAIFakeServer } from '../fakes/openai-server.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { recordingRetry } from './test-helpers.ts';

test('a real adapter over HTTP: 500 and 429 (Retry-After) are retried as requests inside one episode attempt, counted by cause', async () => {
  const server = await startOpenAIFakeServer();
  try {
    const suite = createFakeSuite();
    const [task] = await suite.generate({ seed: 4, count: 1, params: {} });
    const { a, b } = task.expected as { a: number; b: number };
    server.reply(
      { type: 'http-error', status: 500, message: 'upstream exploded' },
      { type: 'http-error', status: 429, message: 'slow down', headers: { 'retry-after': '3' } },
      { type: 'message', toolCalls: [{ id: 'call_a', name: 'add', argumentsText: JSON.stringify({ a, b }) }], usage: { inputTokens: 20, outputTokens: 5 } },
      { type: 'message', text: String(a + b), usage: { inputTokens: 30, outputTokens: 2 } },
    );
    const retry = recordingRetry();
    const store = openResultsStore(':memory:');
    const summary = await runEvaluation({
      suite, tasks: [task], modelRef: 'openai-compatible/test-model', baseUrl: server.baseUrl, env: {}, seed: 4, params: {},
      store, retry: { ...retry.policy, baseDelayMs: 100 }, settings: { temperature: 0 },
    });
    assert.equal(summary.passRate, 1);
    assert.equal(summary.infrastructureErrors, 0);
    // Backoff after the 500 (equal jitter at 0.5 of 100 ms), then exactly the 3 s the 429 asked for.
    assert.deepEqual(retry.sleeps, [75, 3000]);
    const [episode] = store.listEpisodes(summary.runId);
    assert.equal(episode.attempts, 1);
    assert.deepEqual(episode.retries, { 'provider.server-error': 1, 'provider.rate-limited': 1 });
    assert.deepEqual(summary.retries, { 'provider.rate-limited': 1, 'provider.server-error': 1 });
    assert.equal(episode.status, 'scored');
    assert.deepEqual(episode.usage, { inputTokens: 50, outputTokens: 7 });
    assert.equal(server.requests.length, 4);
    assert.equal(store.getRun(summary.runId).provenance.model.baseUrl, server.baseUrl);
  } finally {
    await server.close();
  }
});

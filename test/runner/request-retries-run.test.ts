import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { EpisodeRecord } from '../../src/core/episode.ts';
import { resumeEvaluation, runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import type { ConversationServer, ConversationServerBehaviour } from '../fakes/conversation-server.ts';
import { faultRetryAfterDateSeconds, faultRetryAfterSeconds, providerFaults, startConversationServer } from '../fakes/conversation-server.ts';
import { temporaryDirectory } from './test-helpers.ts';

const toolTurns = 12;

/** Instant, recorded sleeps and a fixed jitter draw. */
function instantRetry(): { sleeps: number[]; sleep(delayMs: number): Promise<void>; random(): number } {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (delayMs) => { sleeps.push(delayMs); }, random: () => 0.5 };
}

function modelTurns(episodes: readonly EpisodeRecord[]): number {
  return episodes.reduce((sum, episode) => sum + episode.messages.filter((message) => message.role === 'assistant').length, 0);
}

describe('model requests are retried inside the episode (OpenAI-compatible stand-in on 127.0.0.1)', () => {
  let server: ConversationServer;
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => { warnings.push(warning); };
  before(async () => {
    server = await startConversationServer({ toolTurns });
    process.on('warning', onWarning);
  });
  after(async () => {
    process.off('warning', onWarning);
    await server.close();
  });

  /** Four multi-turn funcgen episodes against the stand-in behaving as told; `requests` is how many it received. */
  async function runFourEpisodes(seed: number, behaviour: ConversationServerBehaviour, retry: ReturnType<typeof instantRetry> & { timeoutMs?: number }) {
    const suite = getSuite('funcgen');
    const tasks = await suite.generate({ seed, count: 4, params: resolveKnobs(suite.id, suite.knobs, { core: '8' }) });
    server.setBehaviour(behaviour);
    const before = server.requests.length;
    const store = openResultsStore(':memory:');
    const summary = await runEvaluation({
      suite, tasks, modelRef: 'openai-compatible/stand-in', baseUrl: server.baseUrl, env: {}, mode: 'calls', concurrency: 2,
      seed, params: {}, store, retry,
    });
    return { summary, episodes: store.listEpisodes(summary.runId), requests: server.requests.length - before, store };
  }

  test('429 once at every conversation state: every episode scored, no replayed turn, requests = turns + retries', async () => {
    const retry = instantRetry();
    const { summary, episodes, requests, store } = await runFourEpisodes(3, 'rate-limit-each-state-once', retry);
    assert.equal(summary.episodes, 4);
    assert.equal(summary.infrastructureErrors, 0);
    const turns = modelTurns(episodes);
    assert.equal(turns, 4 * (toolTurns + 1), 'every episode ran its whole multi-turn conversation');
    assert.deepEqual(episodes.map((episode) => episode.termination), ['final-answer', 'final-answer', 'final-answer', 'final-answer']);
    assert.deepEqual(episodes.map((episode) => episode.attempts), [1, 1, 1, 1]);
    assert.deepEqual(summary.retries, { 'provider.rate-limited': turns });
    assert.equal(requests, turns + summary.retries['provider.rate-limited']);
    assert.deepEqual([...new Set(server.answeredStates.values())], [1], 'no conversation state was answered twice');
    // retry-after-ms: 1 was honoured for each retry.
    assert.deepEqual([...new Set(retry.sleeps)], [1]);
    assert.equal(retry.sleeps.length, turns);
    assert.deepEqual(episodes.map((episode) => episode.retries), Array.from({ length: 4 }, () => ({ 'provider.rate-limited': toolTurns + 1 })));
    // 13 turns on one episode signal: no abort listener may pile up on it.
    assert.deepEqual(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map(String), []);
    store.close();
  });

  test('every kind of provider fault once at every conversation state: every episode scored, no replayed turn, each retry counted by its cause', async () => {
    const retry = { ...instantRetry(), timeoutMs: 300 };
    const { summary, episodes, requests, store } = await runFourEpisodes(4, 'fault-each-state-once', retry);
    assert.equal(summary.episodes, 4);
    assert.equal(summary.infrastructureErrors, 0);
    const turns = modelTurns(episodes);
    assert.equal(turns, 4 * (toolTurns + 1));
    assert.deepEqual(episodes.map((episode) => episode.attempts), [1, 1, 1, 1]);
    // 52 states over 12 kinds of fault: every kind was sent, and each retry is counted under its kind's cause.
    assert.deepEqual([...server.faultsSent.keys()].sort(), Object.keys(providerFaults).sort());
    const expected: Record<string, number> = {};
    for (const [fault, count] of server.faultsSent) expected[providerFaults[fault]] = (expected[providerFaults[fault]] ?? 0) + count;
    assert.deepEqual(summary.retries, expected);
    assert.equal(Object.values(summary.retries).reduce((sum, count) => sum + count, 0), turns);
    assert.equal(requests, turns * 2, 'one failed and one answered request per model turn');
    assert.deepEqual([...new Set(server.answeredStates.values())], [1], 'no conversation state was answered twice');
    // Retry-After was honoured in both its forms; every other fault waited the backoff.
    assert.equal(retry.sleeps.length, turns);
    assert.equal(retry.sleeps.filter((delay) => delay === faultRetryAfterSeconds * 1000).length, server.faultsSent.get('rate limit, Retry-After in seconds'));
    const dateWaits = retry.sleeps.filter((delay) => delay > 1_000 && delay <= faultRetryAfterDateSeconds * 1000);
    assert.equal(dateWaits.length, server.faultsSent.get('unavailable, Retry-After as an HTTP date'), `waits: ${retry.sleeps.join(', ')}`);
    store.close();
  });

  test('a hanging provider: episodes are infrastructure errors (never time-limit scores), and --resume scores them once it recovers', async () => {
    const suite = getSuite('funcgen');
    const tasks = await suite.generate({ seed: 5, count: 2, params: resolveKnobs(suite.id, suite.knobs, {}) });
    const dbPath = join(temporaryDirectory(), 'results.db');
    server.setBehaviour('hang');
    const retry = { ...instantRetry(), timeoutMs: 1500, maxRetries: 1 };
    // The episode limit is shorter than the request timeout: the provider's wait must not count against it.
    const first = await runEvaluation({
      suite, tasks, modelRef: 'openai-compatible/stand-in', baseUrl: server.baseUrl, env: {}, mode: 'calls', concurrency: 2,
      seed: 5, params: {}, dbPath, retry, episodeTimeoutMs: 1000,
    });
    assert.equal(first.episodes, 0);
    assert.equal(first.infrastructureErrors, 2);
    assert.deepEqual(first.failures['limit.exceeded'] ?? 0, 0);
    assert.deepEqual(first.retries, { 'provider.timeout': 2 });
    const store = openResultsStore(dbPath);
    const stored = store.listEpisodes(first.runId);
    assert.deepEqual(stored.map((episode) => [episode.status, episode.termination, episode.score, episode.error?.code]),
      Array.from({ length: 2 }, () => ['infrastructure-error', null, null, 'provider.timeout']));
    assert.match(stored[0].error?.message ?? '', /timed out after 1500 ms \(gave up after 2 attempts\)/);
    store.close();

    server.setBehaviour('answer');
    const resumed = await resumeEvaluation({ runId: first.runId, dbPath, suite, retry, episodeTimeoutMs: 1000 });
    assert.equal(resumed.episodes, 2);
    assert.equal(resumed.infrastructureErrors, 0);
    assert.equal(resumed.missingEpisodes, 0);
  });
});

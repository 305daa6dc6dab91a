import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import { ProviderError } from '../../src/core/errors.ts';
import { createModelSource } from '../../src/models/registry.ts';
import type { RequestRetryPolicy } from '../../src/models/request-retry.ts';
import { defaultRequestRetryPolicy, withRequestRetries } from '../../src/models/request-retry.ts';
import { sleepUnlessAborted } from '../../src/models/retry-backoff.ts';
import type { GenerateRequest, GenerateResult, LanguageModel, ModelSource, RequestRetry } from '../../src/models/spec.ts';
import { episodeTask, generateRequest } from '../conformance/model-provider.cases.ts';
import { startOpenAIFakeServer } from '../fakes/openai-server.ts';

const answer: GenerateResult = {
  message: { role: 'assistant', content: 'ok', toolCalls: [] }, finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 }, warnings: [], raw: { request: null, response: null },
};

const rateLimited = (retryAfterSeconds?: number): ProviderError =>
  new ProviderError('provider.rate-limited', 'HTTP 429', { statusCode: 429, isRetryable: true, retryAfterSeconds, fix: 'slow down' });
const serverError = (): ProviderError => new ProviderError('provider.server-error', 'HTTP 503', { statusCode: 503, isRetryable: true });

/** A model that plays `script` one step per call: an error to throw, 'hang' (until aborted), or 'answer'. */
function scriptedModel(script: (Error | 'hang' | 'answer')[]): LanguageModel & { calls: GenerateRequest[] } {
  const calls: GenerateRequest[] = [];
  return {
    specificationVersion: 'v1', provider: 'fake', modelId: 'fake-1', calls,
    async generate(request) {
      calls.push(request);
      const step = script.shift() ?? 'answer';
      if (step === 'answer') return answer;
      if (step === 'hang') {
        return new Promise((_, reject) => {
          request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
        });
      }
      throw step;
    },
  };
}

/** Instant recorded sleeps, jitter fixed at 0.5, and a clock the test moves (each attempt takes `attemptMs`). */
function testPolicy(overrides: Partial<RequestRetryPolicy> = {}, attemptMs = 0): { policy: RequestRetryPolicy; sleeps: number[] } {
  const sleeps: number[] = [];
  let nowMs = 0;
  let reads = 0;
  return {
    sleeps,
    policy: {
      ...defaultRequestRetryPolicy,
      baseDelayMs: 1000,
      sleep: async (delayMs) => { sleeps.push(delayMs); nowMs += delayMs; },
      random: () => 0.5,
      // Reads come in pairs around an attempt: start, then end.
      now: () => { reads += 1; if (reads % 2 === 0) nowMs += attemptMs; return nowMs; },
      ...overrides,
    },
  };
}

function episodeModel(source: ModelSource, retries: RequestRetry[], charges: number[]): LanguageModel {
  return source.forEpisode({
    task: episodeTask(), trial: 0, mode: 'calls',
    requests: { pauseClock: () => (charged) => { charges.push(charged); }, onRetry: (retry) => retries.push(retry) },
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the call to throw');
}

describe('request retries', () => {
  test('a retryable failure is retried in place with exponential backoff and equal jitter; each retry is reported with its cause', async () => {
    const model = scriptedModel([serverError(), rateLimited(), 'answer']);
    const { policy, sleeps } = testPolicy({}, 40);
    const retries: RequestRetry[] = [];
    const charges: number[] = [];
    const result = await episodeModel(withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => model }, policy), retries, charges).generate(generateRequest([]));
    assert.equal(result, answer);
    assert.equal(model.calls.length, 3);
    assert.deepEqual(sleeps, [750, 1500]);
    assert.deepEqual(retries.map((retry) => [retry.cause, retry.failedAttempt, retry.delayMs, retry.failedAttemptMs]),
      [['provider.server-error', 1, 750, 40], ['provider.rate-limited', 2, 1500, 40]]);
    // The episode clock is charged only for the attempt that answered.
    assert.deepEqual(charges, [40]);
  });

  test('Retry-After is waited exactly, even past the backoff cap', async () => {
    const model = scriptedModel([rateLimited(90), 'answer']);
    const { policy, sleeps } = testPolicy();
    await episodeModel(withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => model }, policy), [], []).generate(generateRequest([]));
    assert.deepEqual(sleeps, [90_000]);
  });

  test('after maxRetries the failure is thrown, saying how many attempts were made; nothing is charged to the clock', async () => {
    const model = scriptedModel(Array.from({ length: 10 }, serverError));
    const { policy, sleeps } = testPolicy({ maxRetries: 2 });
    const retries: RequestRetry[] = [];
    const charges: number[] = [];
    const error = await rejection(episodeModel(withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => model }, policy), retries, charges).generate(generateRequest([])));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, 'provider.server-error');
    assert.match(error.message, /^HTTP 503 \(gave up after 3 attempts\)\n {2}fix: .*--max-retries/);
    assert.equal(model.calls.length, 3);
    assert.deepEqual(sleeps, [750, 1500]);
    assert.equal(retries.length, 2);
    assert.deepEqual(charges, [0]);
  });

  test('maxRetries 0 makes one attempt', async () => {
    const model = scriptedModel([serverError(), 'answer']);
    const { policy } = testPolicy({ maxRetries: 0 });
    await rejection(episodeModel(withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => model }, policy), [], []).generate(generateRequest([])));
    assert.equal(model.calls.length, 1);
  });

  test('a non-retryable error and a non-provider error are thrown at once', async () => {
    const rejected = new ProviderError('provider.request-rejected', 'HTTP 400', { statusCode: 400, isRetryable: false });
    const bug = new TypeError('x is undefined');
    for (const failure of [rejected, bug]) {
      const model = scriptedModel([failure, 'answer']);
      const { policy, sleeps } = testPolicy();
      assert.equal(await rejection(episodeModel(withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => model }, policy), [], []).generate(generateRequest([]))), failure);
      assert.equal(model.calls.length, 1);
      assert.deepEqual(sleeps, []);
    }
  });

  test('the run-wide wait budget is shared by every episode; once spent, failures are not retried', async () => {
    // Budget 2000 ms; each failed attempt takes 100 ms; backoff 750 then 1500.
    const model = scriptedModel([serverError(), 'answer', serverError(), serverError(), 'answer']);
    const { policy, sleeps } = testPolicy({ maxTotalWaitMs: 2000 }, 100);
    const source = withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => model }, policy);
    await episodeModel(source, [], []).generate(generateRequest([]));
    // 850 ms spent; the next episode's first retry (100 + 750) fits, its second (100 + 1500) does not.
    const error = await rejection(episodeModel(source, [], []).generate(generateRequest([])));
    assert.ok(error instanceof ProviderError);
    assert.match(error.message, /not retried: waiting 1500 ms more would exceed the run's retry wait budget of 2000 ms \(300 ms left\)/);
    assert.match(error.message, /--max-retry-wait/);
    assert.deepEqual(sleeps, [750, 750]);
    assert.equal(model.calls.length, 4);
    // A new source (a new run) starts with a full budget.
    const fresh = scriptedModel([serverError(), 'answer']);
    await episodeModel(withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => fresh }, testPolicy({ maxTotalWaitMs: 2000 }, 100).policy), [], []).generate(generateRequest([]));
    assert.equal(fresh.calls.length, 2);
  });

  test('an attempt that outlives the request timeout is a retryable provider.timeout; the retry answers', async () => {
    const model = scriptedModel(['hang', 'answer']);
    const { policy, sleeps } = testPolicy({ timeoutMs: 20 });
    const retries: RequestRetry[] = [];
    const result = await episodeModel(withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => model }, policy), retries, []).generate(generateRequest([]));
    assert.equal(result, answer);
    assert.deepEqual(retries.map((retry) => retry.cause), ['provider.timeout']);
    assert.deepEqual(sleeps, [750]);
    assert.match(retries[0].message, /fake model 'fake-1' timed out after 20 ms/);
  });

  test('a provider that always hangs ends as provider.timeout after its retries', async () => {
    const model = scriptedModel(['hang', 'hang', 'hang']);
    const { policy } = testPolicy({ timeoutMs: 10, maxRetries: 2 });
    const error = await rejection(episodeModel(withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => model }, policy), [], []).generate(generateRequest([])));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.code, 'provider.timeout');
    assert.equal(error.isRetryable, true);
    assert.equal(model.calls.length, 3);
  });

  test('the caller aborting is not retried and is rethrown as the abort', async () => {
    const model = scriptedModel(['hang', 'answer']);
    const { policy, sleeps } = testPolicy();
    const controller = new AbortController();
    const pending = episodeModel(withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => model }, policy), [], []).generate(generateRequest([], { signal: controller.signal }));
    controller.abort(new Error('stop'));
    const error = await rejection(pending);
    assert.ok(!(error instanceof ProviderError));
    assert.equal(model.calls.length, 1);
    assert.deepEqual(sleeps, []);
  });

  test('each attempt gets a signal of its own, so the caller\'s signal collects no listeners however many turns', async () => {
    const model = scriptedModel([]);
    const { policy } = testPolicy();
    const controller = new AbortController();
    const retrying = episodeModel(withRequestRetries({ ref: 'fake/fake-1', forEpisode: () => model }, policy), [], []);
    for (let turn = 0; turn < 30; turn += 1) await retrying.generate(generateRequest([], { signal: controller.signal }));
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    assert.ok(model.calls.every((call) => call.signal !== controller.signal));
  });

  test('over HTTP: retry-after-ms is honoured to the millisecond and wins over Retry-After', async () => {
    const server = await startOpenAIFakeServer();
    try {
      server.reply(
        { type: 'http-error', status: 429, message: 'slow down', headers: { 'retry-after-ms': '150', 'retry-after': '1' } },
        { type: 'http-error', status: 529, message: 'overloaded', headers: { 'retry-after': '2' } },
        { type: 'message', text: 'fine' },
      );
      const { policy, sleeps } = testPolicy();
      const source = withRequestRetries(createModelSource('openai-compatible/m', { baseUrl: server.baseUrl, env: {} }), policy);
      const retries: RequestRetry[] = [];
      const result = await episodeModel(source, retries, []).generate(generateRequest([{ role: 'user', content: 'hi' }]));
      assert.equal(result.message.content, 'fine');
      assert.deepEqual(sleeps, [150, 2000]);
      assert.deepEqual(retries.map((retry) => retry.cause), ['provider.rate-limited', 'provider.server-error']);
      assert.equal(server.requests.length, 3);
    } finally {
      await server.close();
    }
  });
});

describe('sleepUnlessAborted', () => {
  test('a wait past what one Node timer holds (a Retry-After of weeks) waits, and ends early only when aborted', async () => {
    const controller = new AbortController();
    let slept = false;
    const sleeping = sleepUnlessAborted(3e9, controller.signal).then(() => { slept = true; });
    // One timer of 3e9 ms would fire after 1 ms.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(slept, false);
    controller.abort();
    await sleeping;
    assert.equal(slept, true);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  test('a short wait resolves on time and leaves no listener on the signal', async () => {
    const controller = new AbortController();
    await sleepUnlessAborted(5, controller.signal);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });
});

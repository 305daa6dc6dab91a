import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ProviderError } from '../../src/core/errors.ts';
import type { ProviderErrorContext } from '../../src/models/provider-error-mapping.ts';
import { UndecodableBodyError } from '../../src/models/node-http-fetch.ts';
import { parseRetryAfter, providerErrorFromHttpFailure, toProviderError } from '../../src/models/provider-error-mapping.ts';

const context: ProviderErrorContext = { provider: 'anthropic', modelId: 'claude-x', apiKeyVariable: 'ANTHROPIC_API_KEY', baseUrl: undefined };
const live = new AbortController().signal;

function named(name: string, message: string, cause?: unknown): Error {
  const error = new Error(message, { cause });
  error.name = name;
  return error;
}

describe('provider error mapping', () => {
  test('Retry-After is read as seconds or as an HTTP date', () => {
    assert.equal(parseRetryAfter('7'), 7);
    assert.equal(parseRetryAfter(' 2.5 '), 2.5);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2026 07:28:30 GMT', Date.parse('Wed, 21 Oct 2026 07:28:00 GMT')), 30);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', Date.parse('Wed, 21 Oct 2026 07:29:00 GMT')), 0);
    assert.equal(parseRetryAfter('soon'), undefined);
    // A header sent twice arrives joined: the first value counts, a date's own comma notwithstanding.
    assert.equal(parseRetryAfter('5, 5'), 5);
    assert.equal(parseRetryAfter('250ms, 250ms'), 0.25);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2026 07:28:30 GMT, Wed, 21 Oct 2026 07:28:30 GMT', Date.parse('Wed, 21 Oct 2026 07:28:00 GMT')), 30);
    assert.equal(parseRetryAfter('Wednesday, 21-Oct-26 07:28:10 GMT', Date.parse('Wed, 21 Oct 2026 07:28:00 GMT')), 10);
    assert.equal(parseRetryAfter('Wed Oct 21 07:28:20 2026', Date.parse('Wed, 21 Oct 2026 07:28:00 GMT')), 20);
    // What Date.parse would take as a date in 2001 (a wait of nothing) is no Retry-After: the backoff applies.
    for (const junk of ['-5', '5 5', 'Oct 21', '21 Oct 2026']) assert.equal(parseRetryAfter(junk), undefined, junk);
    assert.equal(parseRetryAfter(null), undefined);
  });

  test('classifies statuses: 429, 408, 5xx and 529 retryable; other 4xx not', () => {
    const table: [number, string, boolean][] = [
      [429, 'provider.rate-limited', true], [408, 'provider.server-error', true], [500, 'provider.server-error', true],
      [502, 'provider.server-error', true], [529, 'provider.server-error', true], [400, 'provider.request-rejected', false],
      [401, 'provider.request-rejected', false], [403, 'provider.request-rejected', false], [404, 'provider.request-rejected', false],
      [422, 'provider.request-rejected', false],
    ];
    for (const [status, code, isRetryable] of table) {
      const error = providerErrorFromHttpFailure({ status, retryAfter: undefined, detail: 'x' }, context);
      assert.deepEqual([status, error.code, error.isRetryable, error.statusCode], [status, code, isRetryable, status]);
    }
  });

  test('messages name the provider, the status and the fix', () => {
    const unauthorized = providerErrorFromHttpFailure({ status: 403, retryAfter: undefined, detail: 'forbidden' }, context);
    assert.match(unauthorized.message, /^anthropic returned HTTP 403 for model 'claude-x': forbidden/);
    assert.match(unauthorized.message, /fix: check the API key in ANTHROPIC_API_KEY/);
    const keyless = providerErrorFromHttpFailure({ status: 401, retryAfter: undefined, detail: '' }, { ...context, provider: 'openai-compatible', apiKeyVariable: undefined, baseUrl: 'http://127.0.0.1:8000/v1' });
    assert.match(keyless.message, /set OPENAI_COMPATIBLE_API_KEY/);
    const notFound = providerErrorFromHttpFailure({ status: 404, retryAfter: undefined, detail: '' }, { ...context, baseUrl: 'http://127.0.0.1:9/v1' });
    assert.match(notFound.message, /check the model id 'claude-x' and the base URL http:\/\/127\.0\.0\.1:9\/v1/);
  });

  test('SDK errors with status and headers keep Retry-After', () => {
    const sdkError = Object.assign(new Error('429 slow down'), { status: 429, headers: new Headers({ 'retry-after': '12' }) });
    const mapped = toProviderError(sdkError, context, live);
    assert.ok(mapped instanceof ProviderError);
    assert.equal(mapped.retryAfterSeconds, 12);
    assert.equal(mapped.cause, sdkError);
  });

  test('transport failures: timeouts, refused and reset connections are retryable', () => {
    const cases: [unknown, string][] = [
      [named('APIConnectionTimeoutError', 'Request timed out.'), 'provider.timeout'],
      [named('TimeoutError', 'The operation was aborted due to timeout'), 'provider.timeout'],
      [new TypeError('fetch failed', { cause: Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }) }), 'provider.timeout'],
      [named('APIConnectionError', 'Connection error.'), 'provider.connection'],
      [new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }), 'provider.connection'],
      [Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'provider.connection'],
      [new SyntaxError('Unexpected token < in JSON'), 'provider.invalid-response'],
      // A whole body that does not decode is the server's fault, even wrapped as the SDK wraps any fetch failure.
      [Object.assign(new Error('Connection error.', { cause: new TypeError('fetch failed', { cause: new UndecodableBodyError('the body is marked content-encoding gzip but does not decode') }) }), { name: 'APIConnectionError' }), 'provider.invalid-response'],
    ];
    for (const [error, code] of cases) {
      const mapped = toProviderError(error, context, live);
      assert.ok(mapped instanceof ProviderError);
      assert.deepEqual([mapped.code, mapped.isRetryable], [code, true]);
    }
  });

  test('an unrecognised failure is not retried, and an aborted request keeps its own error', () => {
    const odd = toProviderError(new RangeError('bug'), context, live);
    assert.ok(odd instanceof ProviderError);
    assert.deepEqual([odd.code, odd.isRetryable], ['internal', false]);
    const controller = new AbortController();
    controller.abort();
    const abort = named('AbortError', 'aborted');
    assert.equal(toProviderError(abort, context, controller.signal), abort);
  });
});

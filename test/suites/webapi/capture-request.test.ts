import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordedRequest } from '../../../src/sandbox/spec.ts';
import { captureRequestConfig } from '../../../src/suites/webapi/capture-request.ts';

function recorded(overrides: Partial<RecordedRequest>): RecordedRequest {
  return { client: 'axios', method: 'post', url: 'https://x.test/a', headers: { Accept: 'application/json, text/plain, */*' }, params: {}, bodyType: 'none', ...overrides };
}

describe('capture', () => {
  test('JSON bodies and params pass through; empty params are no field', () => {
    const result = captureRequestConfig(recorded({ method: 'POST', params: { limit: 50 }, data: { a: 1, b: [true] }, bodyType: 'json', headers: { 'Content-Type': 'application/json' } }));
    assert.deepEqual(result, { ok: true, config: { url: 'https://x.test/a', method: 'post', headers: { 'Content-Type': 'application/json' }, params: { limit: 50 }, data: { a: 1, b: [true] } } });
    const bare = captureRequestConfig(recorded({}));
    assert.deepEqual(bare, { ok: true, config: { url: 'https://x.test/a', method: 'post', headers: { Accept: 'application/json, text/plain, */*' } } });
  });

  test('an empty body (null) gives no body arguments', () => {
    const result = captureRequestConfig(recorded({ data: {}, bodyType: 'json', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }));
    assert.deepEqual(result, { ok: true, config: { url: 'https://x.test/a', method: 'post', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, data: {} } });
  });

  test('undecodable bodies are runtime errors; non-object bodies carry no arguments', () => {
    assert.deepEqual(captureRequestConfig(recorded({ data: '{oops', bodyType: 'text', dataParseError: 'Unexpected token' })), { ok: false, error: 'the request body cannot be decoded: Unexpected token' });
    const text = captureRequestConfig(recorded({ data: 'plain', bodyType: 'text' }));
    assert.ok(text.ok);
    assert.equal(text.config.data, undefined);
  });
});

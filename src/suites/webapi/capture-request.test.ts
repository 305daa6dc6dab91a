import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordedRequest } from '../../sandbox/spec.ts';
import { captureRequestConfig } from './capture-request.ts';

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

  test('an object body with a multipart or form Content-Type is serialised as axios does', () => {
    const multipart = captureRequestConfig(recorded({ data: { file: 'text', size: 3, tags: ['a', 'b'], meta: { k: null } }, bodyType: 'json', headers: { 'Content-Type': 'multipart/form-data' } }));
    assert.ok(multipart.ok);
    assert.deepEqual(multipart.config.data, { file: 'text', size: '3', 'tags[]': 'b', 'meta[k]': '' });
    const form = captureRequestConfig(recorded({ data: { name: 'a b', ids: [1, 2], user: { id: 7 } }, bodyType: 'json', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }));
    assert.ok(form.ok);
    assert.deepEqual(form.config.data, { name: 'a b', ids: ['1', '2'], user: { id: '7' } });
  });

  test('undecodable bodies are runtime errors; non-object bodies carry no arguments', () => {
    assert.deepEqual(captureRequestConfig(recorded({ data: '{oops', bodyType: 'text', dataParseError: 'Unexpected token' })), { ok: false, error: 'the request body cannot be decoded: Unexpected token' });
    const text = captureRequestConfig(recorded({ data: 'plain', bodyType: 'text' }));
    assert.ok(text.ok);
    assert.equal(text.config.data, undefined);
  });
});

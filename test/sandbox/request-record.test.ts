import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFormBody as parseFormBodyRaw, recordRequest as recordRequestRaw, type WireRequest } from '../../src/sandbox/request-record.ts';

// Decoded objects have null prototypes; the main thread receives them as plain objects (structured clone).
const recordRequest = (request: WireRequest): ReturnType<typeof recordRequestRaw> => structuredClone(recordRequestRaw(request));
const parseFormBody = (text: string): ReturnType<typeof parseFormBodyRaw> => structuredClone(parseFormBodyRaw(text));

const wire = (fields: Partial<WireRequest>): WireRequest => ({
  client: 'axios', method: 'GET', url: 'https://x.test/a', headers: {}, params: {}, body: { kind: 'none' }, ...fields,
});

describe('recordRequest follows the reference mock', () => {
  test('method is lower-cased; no body records bodyType none and no data', () => {
    assert.deepEqual(recordRequest(wire({})), { client: 'axios', method: 'get', url: 'https://x.test/a', headers: {}, params: {}, bodyType: 'none' });
  });

  test('the whole URL is decoded, then query pairs overwrite params as strings; a bare key is true', () => {
    const recorded = recordRequest(wire({ url: 'https://x.test/a%2Fb?limit=50&flag&limit=60&q=a%26b', params: { limit: 10, keep: [1] } }));
    assert.equal(recorded.url, 'https://x.test/a/b');
    // decodeURIComponent runs before splitting, so an encoded '&' splits the value as the reference does.
    assert.deepEqual(recorded.params, { limit: '60', keep: [1], flag: true, q: 'a', b: true });
  });

  test('a malformed escape keeps the URL as written', () => {
    assert.equal(recordRequest(wire({ url: 'https://x.test/%E0%A4%A' })).url, 'https://x.test/%E0%A4%A');
  });

  test('string bodies: { -> JSON, empty or "null" -> {}, otherwise form-urlencoded', () => {
    assert.deepEqual(recordRequest(wire({ body: { kind: 'string', text: '{"a":[1,{"b":null}]}' } })).data, { a: [1, { b: null }] });
    assert.deepEqual(recordRequest(wire({ body: { kind: 'string', text: '' } })), { ...recordRequest(wire({})), data: {}, bodyType: 'json' });
    assert.deepEqual(recordRequest(wire({ body: { kind: 'string', text: 'null' } })).data, {});
    const form = recordRequest(wire({ body: { kind: 'string', text: 'a=1&b=x+y' } }));
    assert.deepEqual([form.data, form.bodyType], [{ a: '1', b: 'x y' }, 'form']);
  });

  test('undecodable bodies stay raw with a parse error', () => {
    const json = recordRequest(wire({ body: { kind: 'string', text: '{"a":' } }));
    assert.equal(json.bodyType, 'text');
    assert.equal(json.data, '{"a":');
    assert.match(json.dataParseError ?? '', /not JSON/);
    const form = recordRequest(wire({ body: { kind: 'string', text: 'a=%E0%A4%A' } }));
    assert.match(form.dataParseError ?? '', /not form-urlencoded/);
  });

  test('FormData entries become an object (last value wins); falsy values are an empty body', () => {
    assert.deepEqual(recordRequest(wire({ body: { kind: 'form-data', entries: [['a', '1'], ['a', '2'], ['b', 'x']] } })).data, { a: '2', b: 'x' });
    assert.deepEqual(recordRequest(wire({ body: { kind: 'value', value: null } })).data, {});
    assert.deepEqual(recordRequest(wire({ body: { kind: 'value', value: 5 } })), { ...recordRequest(wire({})), data: 5, bodyType: 'text' });
  });
});

describe('parseFormBody', () => {
  test('k[] appends, a[b][c] nests, a numeric next key makes an array', () => {
    assert.deepEqual(parseFormBody('users[]=U1&users[]=U2&meta[a][b]=v&list[0]=x&list[1]=y&plain=p'), {
      users: ['U1', 'U2'], meta: { a: { b: 'v' } }, list: ['x', 'y'], plain: 'p',
    });
  });

  test('a pair without = keeps the reference quirk (last key character dropped, the pair as value)', () => {
    assert.deepEqual(parseFormBody('flag&a=1'), { fla: 'flag', a: '1' });
  });

  test('decoded objects have null prototypes, so no key reaches a shared prototype', () => {
    const data = parseFormBodyRaw('meta[a][b]=v&plain=p');
    assert.equal(Object.getPrototypeOf(data), null);
    assert.equal(Object.getPrototypeOf(data.meta), null);
  });

  test('keys naming __proto__, constructor or prototype are refused: the body stays raw with a parse error', () => {
    for (const text of ['__proto__[polluted]=1', 'a[__proto__][polluted]=1', 'constructor[prototype][polluted]=1', '__proto__=x', 'prototype[]=1']) {
      assert.throws(() => parseFormBodyRaw(text), /is not allowed in a form body/, text);
      const recorded = recordRequest(wire({ method: 'POST', body: { kind: 'string', text } }));
      assert.deepEqual([recorded.data, recorded.bodyType], [text, 'text'], text);
      assert.match(recorded.dataParseError ?? '', /not allowed/);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });

  test('query and FormData keys named __proto__ stay plain data on a null-prototype object', () => {
    const recorded = recordRequestRaw(wire({ url: 'https://x.test/a?__proto__=x', body: { kind: 'form-data', entries: [['__proto__', 'y']] } }));
    assert.deepEqual(Object.keys(recorded.params), ['__proto__']);
    assert.equal(recorded.params.__proto__, 'x');
    assert.equal((recorded.data as Record<string, string>).__proto__, 'y');
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../../src/core/json.ts';
import { canonicalJson } from '../../../src/core/json.ts';
import { findOperation } from '../../../src/openapi/document.ts';
import { isLegalArgument } from '../../../src/openapi/argument-legality.ts';
import { loadOpenApiObject } from '../../../src/openapi/load-openapi.ts';
import { matchUrlToPaths } from '../../../src/openapi/path-matcher.ts';
import { driftOpenApi } from '../../../src/transforms/drift/openapi-drift.ts';
import { createRequestMapper } from '../../../src/transforms/drift/request-mapper.ts';

const spec: JsonObject = {
  openapi: '3.0.3',
  info: { title: 'Shop', version: '1.0.0' },
  servers: [{ url: 'https://api.shop.test/v1' }],
  paths: {
    '/get/orders/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        parameters: [
          { name: 'status', in: 'query', schema: { type: 'string' } },
          { $ref: '#/components/parameters/Limit' },
          { name: 'sort', in: 'query', schema: { type: 'string', enum: ['asc', 'desc'], default: 'asc' } },
        ],
        responses: { 200: { description: 'ok' } },
      },
    },
    '/orders': {
      post: {
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewOrder' }, example: { city: 'Oslo' } } } },
        responses: { 201: { description: 'created' } },
      },
    },
  },
  components: {
    parameters: { Limit: { name: 'limit', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } } },
    schemas: {
      NewOrder: {
        type: 'object',
        required: ['city', 'shipping_address', 'geo_zone'],
        properties: { city: { type: 'string' }, shipping_address: { type: 'string' }, geo_zone: { type: 'string' }, gift: { type: 'boolean', default: false } },
      },
    },
  },
};

describe('drift on an OpenAPI document (fixture)', () => {
  const drifted = driftOpenApi(spec, 'all', 4, { probability: 1 });

  test('servers and paths move, parameters and bodies drift, logged exactly', async () => {
    assert.deepEqual(drifted.servers, [{ from: 'https://api.shop.test/v1', to: 'https://api.shop.test/v2' }]);
    assert.deepEqual(Object.keys(drifted.document.paths as object), ['/fetch/orders/{id}', '/orders']);
    const get = drifted.log[0];
    assert.equal(get.key, 'get /get/orders/{id}');
    assert.equal(get.to, '/fetch/orders/{id}');
    assert.deepEqual(get.changes.slice(0, 5), [
      { kind: 'server-moved', from: 'https://api.shop.test/v1', to: 'https://api.shop.test/v2' },
      { kind: 'endpoint-renamed', from: '/get/orders/{id}', to: '/fetch/orders/{id}' },
      { kind: 'parameter-renamed', location: 'query', from: 'status', to: 'state' },
      { kind: 'type-drifted', location: 'query', parameter: 'limit', from: 'integer', to: 'string' },
      { kind: 'default-flipped', location: 'query', parameter: 'sort', from: 'asc', to: 'desc' },
    ]);
    const post = drifted.log[1];
    assert.deepEqual(post.changes.slice(1, 5), [
      { kind: 'parameter-renamed', location: 'body', from: 'city', to: 'location' },
      { kind: 'type-drifted', location: 'body', parameter: 'gift', from: 'boolean', to: 'string' },
      { kind: 'default-flipped', location: 'body', parameter: 'gift', from: 'false', to: 'true' },
      { kind: 'nested-object', location: 'body', object: 'address', fields: ['shipping_address', 'geo_zone'] },
    ]);
    // The original document is untouched and the drifted one is valid OpenAPI.
    assert.ok((spec.paths as JsonObject)['/get/orders/{id}']);
    const document = await loadOpenApiObject(drifted.document, 'drifted-shop');
    const operation = findOperation(matchUrlToPaths(document, 'https://api.shop.test/v2/orders')[0], 'post');
    assert.ok(operation?.requestBody);
    const body = (drifted.document.paths as Record<string, Record<string, JsonObject>>)['/orders'].post.requestBody as JsonObject;
    assert.equal(canonicalJson(body).includes('"example"'), false, 'stale examples are dropped');
    assert.equal(canonicalJson(driftOpenApi(spec, 'all', 4, { probability: 1 })), canonicalJson(drifted));
  });

  test('requests map forward to legal new requests and back', async () => {
    const document = await loadOpenApiObject(drifted.document, 'drifted-shop');
    const mapper = createRequestMapper(drifted, ['https://api.shop.test/v1']);
    const old = { url: 'https://api.shop.test/v1/get/orders/42?x=1', method: 'get', params: { status: 'open', limit: 5 } };
    const mapped = mapper.toNew(old);
    assert.ok(mapped.ok);
    assert.equal(mapped.request.url, 'https://api.shop.test/v2/fetch/orders/42?x=1');
    assert.deepEqual(mapped.request.params, { state: 'open', limit: '5', sort: 'asc' }, 'the old default is made explicit');
    const path = matchUrlToPaths(document, mapped.request.url.split('?')[0])[0];
    for (const name of Object.keys(mapped.request.params ?? {})) assert.ok(isLegalArgument(document, { location: 'query', name, method: 'get', path }), name);
    const back = mapper.toOld(mapped.request);
    assert.ok(back.ok);
    assert.deepEqual(back.request, { url: old.url, method: 'get', params: { status: 'open', limit: 5, sort: 'asc' } });
    const created = mapper.toNew({ url: 'https://api.shop.test/v1/orders', method: 'post', data: { city: 'Oslo', shipping_address: 'Main 1', geo_zone: 'EU' } });
    assert.ok(created.ok);
    assert.deepEqual(created.request.data?.address, { shipping_address: 'Main 1', geo_zone: 'EU' });
    assert.equal(created.request.data?.location, 'Oslo');
    assert.deepEqual(mapper.toNew({ url: 'https://api.shop.test/v1/nowhere', method: 'get' }), { ok: false, reason: "no GET operation matches '/nowhere'" });
  });
});

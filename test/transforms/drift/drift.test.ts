import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../../../src/core/json.ts';
import type { ToolSpec } from '../../../src/core/tool.ts';
import type { DriftOperatorId } from '../../../src/transforms/drift/drift-operators.ts';
import { driftOperatorIds, parseDriftOperatorId, singleDriftOperatorIds } from '../../../src/transforms/drift/drift-operators.ts';
import { evolveServerUrl, evolveToolName, raiseVersion } from '../../../src/transforms/drift/endpoint-evolution.ts';
import { createToolCallMapper } from '../../../src/transforms/drift/tool-call-mapper.ts';
import { changedToolNames, driftTools } from '../../../src/transforms/drift/tool-drift.ts';
import { ConfigError } from '../../../src/core/errors.ts';

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Weather forecast for a place.',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name' },
      days: { type: 'integer', minimum: 1, maximum: 14 },
      detailed: { type: 'boolean', default: false },
      order: { type: 'string', enum: ['ASC', 'DESC'], default: 'ASC' },
      home_address: { type: 'string' },
      geo_hint: { type: 'string' },
    },
    required: ['city', 'days', 'home_address', 'geo_hint'],
  },
};
const search: ToolSpec = {
  name: 'search',
  description: 'Full-text search.',
  inputSchema: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer', default: 10 } }, required: ['q'] },
};
const tools = [weather, search];

function only(operator: DriftOperatorId, seed = 7) {
  return driftTools(tools, operator, seed);
}

describe('drift operators on tools', () => {
  test('endpoint evolution: get -> fetch, otherwise a _v2 suffix; names stay <= 64 chars', () => {
    const drifted = only('endpoint');
    assert.deepEqual(drifted.tools.map((tool) => tool.name), ['fetch_weather', 'search_v2']);
    assert.deepEqual(drifted.log[0].changes, [{ kind: 'endpoint-renamed', from: 'get_weather', to: 'fetch_weather' }]);
    assert.equal(evolveToolName('getUserPosts'), 'fetchUserPosts');
    assert.equal(evolveToolName('post_message_for_slack'), 'submit_message_for_slack');
    assert.equal(evolveToolName('budget_for_x'), 'budget_for_x_v2');
    const long = `get_${'a'.repeat(60)}`;
    assert.equal(evolveToolName(long), `fetch_${'a'.repeat(60)}`.slice(-64));
    assert.equal(drifted.tools[0].inputSchema, drifted.tools[0].inputSchema);
    assert.deepEqual(drifted.tools[0].inputSchema, weather.inputSchema);
  });

  test('server and path versions', () => {
    assert.equal(evolveServerUrl('https://www.googleapis.com/calendar/v3'), 'https://www.googleapis.com/calendar/v4');
    assert.equal(evolveServerUrl('https://app.asana.com/api/1.0'), 'https://app.asana.com/api/2.0');
    assert.equal(evolveServerUrl('https://slack.com/api'), 'https://slack.com/api/v2');
    assert.equal(evolveServerUrl('https://weather.p.rapidapi.com'), 'https://weather.p.api-service.io');
    assert.equal(raiseVersion('/v4/spreadsheets/{spreadsheetId}'), '/v5/spreadsheets/{spreadsheetId}');
  });

  test('parameter renaming by the semantic map, logged exactly', () => {
    const drifted = only('rename');
    assert.deepEqual(Object.keys(drifted.tools[0].inputSchema.properties as object), ['location', 'days', 'detailed', 'order', 'home_address', 'geo_hint']);
    assert.deepEqual(drifted.tools[0].inputSchema.required, ['location', 'days', 'home_address', 'geo_hint']);
    assert.deepEqual(drifted.log[0].changes, [{ kind: 'parameter-renamed', location: 'argument', from: 'city', to: 'location' }]);
    assert.deepEqual(drifted.log[1].changes, []);
    assert.deepEqual(changedToolNames(drifted), ['get_weather']);
  });

  test('type drift: integer and boolean become pattern-checked strings; bounds go, defaults become text', () => {
    const drifted = only('type');
    const properties = drifted.tools[0].inputSchema.properties as Record<string, unknown>;
    assert.deepEqual(properties.days, { type: 'string', pattern: '^-?[0-9]+$' });
    assert.deepEqual(properties.detailed, { type: 'string', pattern: '^(true|false)$', default: 'false' });
    assert.deepEqual(drifted.log[0].changes, [
      { kind: 'type-drifted', location: 'argument', parameter: 'days', from: 'integer', to: 'string' },
      { kind: 'type-drifted', location: 'argument', parameter: 'detailed', from: 'boolean', to: 'string' },
    ]);
    assert.deepEqual(drifted.log[1].changes, [{ kind: 'type-drifted', location: 'argument', parameter: 'limit', from: 'integer', to: 'string' }]);
  });

  test('default flips: asc <-> desc (keeping an enum\'s spelling), true <-> false', () => {
    const drifted = only('default-flip');
    const properties = drifted.tools[0].inputSchema.properties as Record<string, { default?: unknown }>;
    assert.equal(properties.detailed.default, true);
    assert.equal(properties.order.default, 'DESC');
    assert.deepEqual(drifted.log[0].changes, [
      { kind: 'default-flipped', location: 'argument', parameter: 'detailed', from: false, to: true },
      { kind: 'default-flipped', location: 'argument', parameter: 'order', from: 'ASC', to: 'DESC' },
    ]);
    assert.deepEqual(drifted.log[1].changes, [], 'a numeric default is not flipped');
  });

  test('nested object: required address/geo/coord parameters grouped under a required "address"', () => {
    const drifted = only('nest');
    const schema = drifted.tools[0].inputSchema;
    assert.deepEqual(schema.required, ['city', 'days', 'address']);
    assert.deepEqual((schema.properties as Record<string, unknown>).address, {
      type: 'object',
      description: 'Nested compound object automatically created.',
      properties: { home_address: { type: 'string' }, geo_hint: { type: 'string' } },
      required: ['home_address', 'geo_hint'],
      additionalProperties: false,
    });
    assert.deepEqual(drifted.log[0].changes, [{ kind: 'nested-object', location: 'argument', object: 'address', fields: ['home_address', 'geo_hint'] }]);
  });

  test('required <-> optional swap: one each way; the one made required has a default', () => {
    for (let seed = 0; seed < 20; seed += 1) {
      const drifted = driftTools(tools, 'required-swap', seed);
      const [toOptional, toRequired] = drifted.log[0].changes;
      assert.equal(toOptional.kind, 'required-to-optional');
      assert.ok(toOptional.kind === 'required-to-optional' && ['city', 'days', 'home_address', 'geo_hint'].includes(toOptional.parameter));
      assert.ok(toRequired.kind === 'optional-to-required' && ['detailed', 'order'].includes(toRequired.parameter));
      const required = drifted.tools[0].inputSchema.required as string[];
      assert.ok(!required.includes(toOptional.kind === 'required-to-optional' ? toOptional.parameter : ''));
      assert.ok(required.includes(toRequired.kind === 'optional-to-required' ? toRequired.parameter : ''));
      assert.deepEqual(drifted.log[1].changes, [
        { kind: 'required-to-optional', location: 'argument', parameter: 'q' },
        { kind: 'optional-to-required', location: 'argument', parameter: 'limit', default: 10 },
      ]);
    }
    const chosen = new Set(Array.from({ length: 20 }, (_, seed) => canonicalJson(driftTools(tools, 'required-swap', seed).log[0].changes)));
    assert.ok(chosen.size > 1, 'the seed decides which parameters swap');
  });

  test('probability 0 turns the stochastic operators off; the others always apply', () => {
    for (const operator of ['endpoint', 'nest', 'required-swap'] as const) {
      assert.deepEqual(changedToolNames(driftTools(tools, operator, 1, { probability: 0 })), [], operator);
    }
    assert.deepEqual(changedToolNames(driftTools(tools, 'type', 1, { probability: 0 })), ['get_weather', 'search']);
    assert.throws(() => driftTools(tools, 'all', 1, { probability: 2 }), ConfigError);
    assert.throws(() => parseDriftOperatorId('shuffle'), /use one of: endpoint, rename, type, default-flip, nest, required-swap, all/);
  });

  test('untouched tools (a Finish tool) stay byte-identical', () => {
    const finish: ToolSpec = { name: 'Finish', description: 'end', inputSchema: { type: 'object', properties: { return_type: { type: 'string' } }, required: ['return_type'] } };
    const drifted = driftTools([...tools, finish], 'all', 3, { untouched: ['Finish'] });
    assert.deepEqual(drifted.tools[2], finish);
    assert.deepEqual(drifted.log[2].changes, []);
  });

  test('deterministic by seed: same seed, same bytes; inputs never mutated', () => {
    const before = canonicalJson(tools);
    for (const operator of driftOperatorIds) {
      assert.equal(canonicalJson(driftTools(tools, operator, 11)), canonicalJson(driftTools(tools, operator, 11)), operator);
    }
    assert.equal(canonicalJson(tools), before);
  });
});

describe('serving calls under the drifted schema (all operators)', () => {
  const drifted = driftTools(tools, 'all', 5);
  const mapper = createToolCallMapper(drifted);
  const gold = { name: 'get_weather', arguments: { city: 'Oslo', days: 3, home_address: 'Main St 1', geo_hint: 'north' } };

  test('the composed log, in the reference order', () => {
    const kinds = drifted.log[0].changes.map((change) => change.kind);
    assert.deepEqual(kinds, ['endpoint-renamed', 'parameter-renamed', 'type-drifted', 'type-drifted', 'default-flipped', 'default-flipped', 'nested-object', 'required-to-optional', 'optional-to-required']);
  });

  test('a gold call mapped forward is accepted and maps back to the same call (old defaults made explicit)', () => {
    const fresh = mapper.toNew(gold);
    assert.ok(fresh);
    assert.equal(fresh.name, 'fetch_weather');
    assert.deepEqual(fresh.arguments, { location: 'Oslo', days: '3', detailed: 'false', order: 'ASC', address: { home_address: 'Main St 1', geo_hint: 'north' } });
    const served = mapper.serve(fresh);
    assert.deepEqual(served, { ok: true, call: { name: 'get_weather', arguments: { city: 'Oslo', days: 3, detailed: false, order: 'ASC', home_address: 'Main St 1', geo_hint: 'north' } } });
  });

  test('omitting a flipped default under the new schema means the new default for the original implementation', () => {
    const log = drifted.log[0].changes;
    const swapped = log.find((change) => change.kind === 'optional-to-required');
    assert.ok(swapped && swapped.kind === 'optional-to-required');
    const call = { name: 'fetch_weather', arguments: { location: 'Oslo', days: '3', address: { home_address: 'a', geo_hint: 'b' }, [swapped.parameter]: swapped.default } };
    const served = mapper.serve(call);
    assert.ok(served.ok);
    const other = swapped.parameter === 'detailed' ? 'order' : 'detailed';
    assert.equal(served.call.arguments[other], other === 'order' ? 'DESC' : true);
  });

  test('an old-schema call gets the errors a strict server gives, each naming the parameter', () => {
    assert.deepEqual(mapper.serve(gold), { ok: false, rejection: {
      status: 301, code: 'tool.unknown', message: "301 Moved Permanently: 'get_weather' has moved to 'fetch_weather' in the current API version; call 'fetch_weather' instead",
    } });
    assert.deepEqual(mapper.serve({ name: 'nope', arguments: {} }), { ok: false, rejection: { status: 404, code: 'tool.unknown', message: "404 Not Found: there is no endpoint named 'nope'" } });
    const served = mapper.serve({ name: 'fetch_weather', arguments: gold.arguments });
    assert.equal(served.ok, false);
    assert.ok(!served.ok);
    assert.equal(served.rejection.status, 400);
    assert.equal(served.rejection.code, 'arguments.invalid');
    const message = served.rejection.message;
    assert.match(message, /^400 Bad Request: fetch_weather: /);
    const required = (drifted.tools[0].inputSchema.required as string[]).filter((name) => !Object.hasOwn(gold.arguments, name));
    assert.ok(required.length >= 2);
    for (const part of ["unknown parameter 'city'", "unknown parameter 'home_address'", "unknown parameter 'geo_hint'",
      "parameter 'days' must be string", ...required.map((name) => `missing required parameter '${name}'`)]) {
      assert.ok(message.includes(part), `${part} in ${message}`);
    }
    const nested = mapper.serve({ name: 'fetch_weather', arguments: { location: 'x', days: 'three', detailed: 'false', order: 'ASC', address: { home_address: 'a', zip: 1 } } });
    assert.ok(!nested.ok);
    assert.ok(nested.rejection.message.includes("missing required parameter 'address.geo_hint'"), nested.rejection.message);
    assert.ok(nested.rejection.message.includes("unknown parameter 'address.zip'"), nested.rejection.message);
    assert.ok(nested.rejection.message.includes("parameter 'days' must be a string of digits"), nested.rejection.message);
  });

  test('each single operator: gold forward is accepted and maps back (round trip)', () => {
    for (const operator of singleDriftOperatorIds) {
      const single = driftTools(tools, operator, 9);
      const singleMapper = createToolCallMapper(single);
      const fresh = singleMapper.toNew(gold);
      assert.ok(fresh, operator);
      const served = singleMapper.serve(fresh);
      assert.ok(served.ok, `${operator}: ${served.ok ? '' : served.rejection.message}`);
      for (const [name, value] of Object.entries(gold.arguments)) assert.deepEqual(served.call.arguments[name], value, `${operator} ${name}`);
    }
  });
});

describe('validators shared across mappers (one per episode)', () => {
  const tool = (name: string, schema: ToolSpec['inputSchema']): ToolSpec => ({ name, description: name, inputSchema: schema });
  const unchanged = (tools: ToolSpec[]) => ({ tools, log: tools.map((spec) => ({ key: spec.name, from: spec.name, to: spec.name, changes: [] })) });

  test('two schemas with one $id are each checked against their own rules, in one mapper and in the next', () => {
    const byCount = tool('by_count', { $id: 'https://example.com/params.json', type: 'object', properties: { count: { type: 'integer' } }, required: ['count'], additionalProperties: false });
    const byName = tool('by_name', { $id: 'https://example.com/params.json', type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false });
    for (let episode = 0; episode < 2; episode += 1) {
      const mapper = createToolCallMapper(unchanged([byCount, byName]));
      assert.equal(mapper.serve({ name: 'by_count', arguments: { count: 3 } }).ok, true);
      assert.equal(mapper.serve({ name: 'by_name', arguments: { name: 'x' } }).ok, true);
      const wrong = mapper.serve({ name: 'by_name', arguments: { name: 3 } });
      assert.ok(!wrong.ok && /name/.test(wrong.rejection.message), JSON.stringify(wrong));
    }
  });

  test('past the shared cache\'s bound, fresh schemas still validate, and ones seen early are compiled again, not mixed up', () => {
    const fresh = (index: number) => tool(`tool_${index}`, { type: 'object', properties: { [`p${index}`]: { type: 'integer' } }, required: [`p${index}`], additionalProperties: false });
    for (let index = 0; index < 2100; index += 1) {
      const mapper = createToolCallMapper(unchanged([fresh(index)]));
      assert.equal(mapper.serve({ name: `tool_${index}`, arguments: { [`p${index}`]: index } }).ok, true);
    }
    const first = createToolCallMapper(unchanged([fresh(0)]));
    assert.equal(first.serve({ name: 'tool_0', arguments: { p0: 1 } }).ok, true);
    assert.equal(first.serve({ name: 'tool_0', arguments: { p0: 'one' } }).ok, false);
    assert.equal(first.serve({ name: 'tool_0', arguments: { p2099: 1 } }).ok, false);
  });
});

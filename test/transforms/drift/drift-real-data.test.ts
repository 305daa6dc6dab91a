import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { JsonObject, JsonValue } from '../../../src/core/json.ts';
import { canonicalJson, isJsonObject, jsonEqual } from '../../../src/core/json.ts';
import { datasetPath, hasDataset } from '../../../src/core/data-location.ts';
import type { ToolSpec } from '../../../src/core/tool.ts';
import { findOperation } from '../../../src/openapi/document.ts';
import { isLegalArgument } from '../../../src/openapi/argument-legality.ts';
import { loadOpenApiFile, loadOpenApiObject } from '../../../src/openapi/load-openapi.ts';
import { matchUrlToPaths } from '../../../src/openapi/path-matcher.ts';
import type { DriftChange } from '../../../src/transforms/drift/drift-model.ts';
import { driftOperatorIds } from '../../../src/transforms/drift/drift-operators.ts';
import { driftOpenApi } from '../../../src/transforms/drift/openapi-drift.ts';
import type { HttpRequest } from '../../../src/transforms/drift/request-mapper.ts';
import { createRequestMapper } from '../../../src/transforms/drift/request-mapper.ts';
import { createToolCallMapper } from '../../../src/transforms/drift/tool-call-mapper.ts';
import { driftTools } from '../../../src/transforms/drift/tool-drift.ts';

const groups = ['G1_category', 'G1_instruction', 'G1_tool', 'G2_category', 'G2_instruction', 'G3_instruction'];
const hasStableToolBench = hasDataset('stabletoolbench', 'solvable_queries', 'test_instruction', 'G1_tool.json');
const hasWapiibench = hasDataset('wapiibench', 'openapi', 'real_world_specs', 'slack.yaml');

type StableParameter = { name: string; type: string; description?: string; default?: JsonValue };
type StableApi = { tool_name: string; api_name: string; api_description?: string; required_parameters?: StableParameter[]; optional_parameters?: StableParameter[] };

/** StableToolBench's JSON types (reference 5.3: NUMBER -> integer, BOOLEAN -> boolean, else string); defaults kept. */
function stableTool(api: StableApi, index: number): ToolSpec {
  const properties: JsonObject = {};
  const typeOf = (type: string): string => (type === 'NUMBER' ? 'integer' : type === 'BOOLEAN' ? 'boolean' : 'string');
  for (const parameter of [...(api.required_parameters ?? []), ...(api.optional_parameters ?? [])]) {
    const schema: JsonObject = { type: typeOf(parameter.type), description: parameter.description ?? '' };
    if (parameter.default !== undefined && parameter.default !== '' && parameter.default !== null) schema.default = parameter.default;
    properties[parameter.name] = schema;
  }
  return {
    name: `${api.api_name.toLowerCase().replace(/[^a-z0-9_]+/g, '_')}_for_${api.tool_name.toLowerCase().replace(/[^a-z0-9_]+/g, '_')}_${index}`,
    description: api.api_description ?? '',
    inputSchema: { type: 'object', properties, required: (api.required_parameters ?? []).map((parameter) => parameter.name) },
  };
}

function loadStableTools(): ToolSpec[] {
  const tools: ToolSpec[] = [];
  for (const group of groups) {
    const queries = JSON.parse(readFileSync(datasetPath('stabletoolbench', 'solvable_queries', 'test_instruction', `${group}.json`), 'utf8')) as { api_list: StableApi[] }[];
    for (const query of queries) for (const api of query.api_list) tools.push(stableTool(api, tools.length));
  }
  return tools;
}

describe('drift on StableToolBench tools (765 solvable queries)', { skip: !hasStableToolBench && 'needs ../shared/data/stabletoolbench (not in a clone)' }, () => {
  const tools = loadStableTools();

  test('every operator: old calls built from the documented defaults map forward, are accepted, and map back exactly', () => {
    assert.equal(tools.length, 4070);
    for (const operator of driftOperatorIds) {
      const drifted = driftTools(tools, operator, 42);
      const mapper = createToolCallMapper(drifted);
      let served = 0;
      tools.forEach((tool, index) => {
        const required = tool.inputSchema.required as string[];
        const properties = tool.inputSchema.properties as Record<string, JsonObject>;
        // A gold-like call: every property with a default, written in the declared type.
        const arguments_: JsonObject = {};
        for (const [name, schema] of Object.entries(properties)) {
          if (schema.default === undefined) continue;
          const text = String(schema.default);
          if (schema.type === 'integer' && !(/^-?[0-9]+$/.test(text) && Number.isSafeInteger(Number(text)))) continue;
          if (schema.type === 'boolean' && !/^(true|false)$/i.test(text)) continue;
          arguments_[name] = schema.type === 'integer' ? Number(text) : schema.type === 'boolean' ? text.toLowerCase() === 'true' : text;
        }
        if (!required.every((name) => Object.hasOwn(arguments_, name))) return;
        const fresh = mapper.toNew({ name: tool.name, arguments: arguments_ });
        assert.ok(fresh);
        assert.equal(fresh.name, drifted.tools[index].name);
        const result = mapper.serve(fresh);
        assert.ok(result.ok, `${operator} ${tool.name}: ${result.ok ? '' : result.rejection.message}`);
        assert.equal(result.call.name, tool.name);
        const flipped = new Set(drifted.log[index].changes.flatMap((change) => (change.kind === 'default-flipped' || change.kind === 'optional-to-required' ? [change.parameter] : [])));
        const back = Object.fromEntries(Object.entries(result.call.arguments).filter(([name]) => Object.hasOwn(arguments_, name) || !flipped.has(name)));
        assert.deepEqual(back, arguments_, `${operator} ${tool.name}`);
        served += 1;
      });
      assert.ok(served > 2000, `${operator}: ${served} calls checked`);
    }
  });

  test('the change log of `all` (seed 42) touches every kind of change, and is the same bytes on every run', () => {
    const drifted = driftTools(tools, 'all', 42);
    const counts = new Map<DriftChange['kind'], number>();
    for (const entry of drifted.log) for (const change of entry.changes) counts.set(change.kind, (counts.get(change.kind) ?? 0) + 1);
    for (const kind of ['endpoint-renamed', 'parameter-renamed', 'type-drifted', 'default-flipped', 'nested-object', 'required-to-optional', 'optional-to-required'] as const) {
      assert.ok((counts.get(kind) ?? 0) > 0, kind);
    }
    // Type drift is not stochastic: exactly one change per integer/boolean parameter.
    const typed = tools.flatMap((tool) => Object.values(tool.inputSchema.properties as Record<string, JsonObject>)).filter((schema) => schema.type === 'integer' || schema.type === 'boolean').length;
    assert.equal(counts.get('type-drifted'), typed);
    assert.equal(canonicalJson(driftTools(tools, 'all', 42)), canonicalJson(drifted));
    assert.notEqual(canonicalJson(driftTools(tools, 'all', 43).log), canonicalJson(drifted.log));
  });
});

function requestArguments(request: HttpRequest): { location: 'header' | 'query' | 'body'; name: string }[] {
  return [
    ...Object.keys(request.headers ?? {}).map((name) => ({ location: 'header' as const, name })),
    ...Object.keys(request.params ?? {}).map((name) => ({ location: 'query' as const, name })),
    ...Object.keys(request.data ?? {}).map((name) => ({ location: 'body' as const, name })),
  ];
}

describe('drift on the WAPIIBench OpenAPI specs', { skip: !hasWapiibench && 'needs ../shared/data/wapiibench (not in a clone)' }, () => {
  const specDirectory = datasetPath('wapiibench', 'openapi', 'real_world_specs');
  const samples = JSON.parse(readFileSync(datasetPath('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json'), 'utf8')) as
    { api: string; index: number; config: HttpRequest }[];

  for (const api of ['asana', 'google_calendar_v3', 'google_sheet_v4', 'slack']) {
    test(`${api}: drift 'all' loads as valid OpenAPI; every expected request maps to a legal new request and back`, async () => {
      const raw = parseYaml(readFileSync(join(specDirectory, `${api}.yaml`), 'utf8'), { maxAliasCount: -1 }) as JsonObject;
      const drifted = driftOpenApi(raw, 'all', 42);
      assert.equal(canonicalJson(driftOpenApi(raw, 'all', 42)), canonicalJson(drifted), 'deterministic');
      const document = await loadOpenApiObject(drifted.document, `drifted-${api}`);
      const original = await loadOpenApiFile(join(specDirectory, `${api}.yaml`));
      const servers = (raw.servers as { url: string }[]).map((server) => server.url);
      const mapper = createRequestMapper(drifted, servers);
      let changed = 0;
      for (const sample of samples.filter((candidate) => candidate.api === api)) {
        const mapped = mapper.toNew(sample.config);
        assert.ok(mapped.ok, `${api}/${sample.index}: ${mapped.ok ? '' : mapped.reason}`);
        const fresh = mapped.request;
        const path = matchUrlToPaths(document, fresh.url)[0];
        assert.ok(path, `${api}/${sample.index}: ${fresh.url} matches the new spec`);
        assert.ok(findOperation(path, fresh.method), `${api}/${sample.index}: method`);
        // A few expected requests of the data set are already illegal under the original spec: drift keeps the count.
        const illegal = (spec: typeof document, request: HttpRequest): number => {
          const candidate = matchUrlToPaths(spec, request.url)[0];
          return requestArguments(request).filter((argument) => !isLegalArgument(spec, { ...argument, method: request.method, path: candidate })).length;
        };
        assert.equal(illegal(document, fresh), illegal(original, sample.config), `${api}/${sample.index}: legal arguments stay legal`);
        if (!jsonEqual(fresh, sample.config)) changed += 1;
        const back = mapper.toOld(fresh);
        assert.ok(back.ok);
        const entry = drifted.log.find((candidate) => candidate.key === mapped.endpoint);
        assert.ok(entry);
        // Back on the old API: the same request, plus at most the defaults the drift made explicit.
        const explicit = entry.changes.filter((change) => change.kind === 'default-flipped' || change.kind === 'optional-to-required').length;
        assert.equal(back.request.url, sample.config.url);
        assert.equal(back.request.method, sample.config.method);
        let extra = 0;
        for (const key of ['headers', 'params', 'data'] as const) {
          const values: JsonObject = back.request[key] ?? {};
          for (const [name, value] of Object.entries(sample.config[key] ?? {})) assert.deepEqual(values[name], value, `${api}/${sample.index} ${key}.${name}`);
          extra += Object.keys(values).filter((name) => !Object.hasOwn(sample.config[key] ?? {}, name)).length;
        }
        assert.ok(extra <= explicit, `${api}/${sample.index}: ${extra} extra arguments, ${explicit} explicit defaults`);
      }
      assert.ok(changed > 0, `${api}: drift changes some expected requests`);
      assert.ok(drifted.log.some((entry) => entry.changes.length > 0));
      assert.ok(isJsonObject(drifted.document.paths));
    });
  }

  test('the server version goes up (or the path versions, for Google Sheets)', () => {
    const load = (api: string): JsonObject => parseYaml(readFileSync(join(specDirectory, `${api}.yaml`), 'utf8'), { maxAliasCount: -1 }) as JsonObject;
    assert.deepEqual(driftOpenApi(load('google_calendar_v3'), 'endpoint', 42).servers, [{ from: 'https://www.googleapis.com/calendar/v3', to: 'https://www.googleapis.com/calendar/v4' }]);
    const sheets = driftOpenApi(load('google_sheet_v4'), 'endpoint', 42);
    assert.deepEqual(sheets.servers, []);
    assert.ok(sheets.log.every((entry) => entry.to.startsWith('/v5/')), 'every Sheets path moves to /v5');
  });
});

/**
 * Each drift operator on its own (not only `all`) on the four WAPIIBench OpenAPI specs of the shared data: the
 * drifted document loads as valid OpenAPI, the drift is deterministic by seed and changes with it, it logs only
 * its own kinds of change (and finds some, but for `nest`: these APIs have nothing address-like), and every expected request of the data set maps to a request the drifted spec allows
 * (as many illegal arguments as under the original spec) and back to the same request. Skipped, with the reason,
 * when the data is not on this machine.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { datasetPath } from '../../src/core/data-location.ts';
import type { JsonObject } from '../../src/core/json.ts';
import { canonicalJson, jsonEqual } from '../../src/core/json.ts';
import { isLegalArgument } from '../../src/openapi/argument-legality.ts';
import type { OpenApiDocument } from '../../src/openapi/document.ts';
import { findOperation } from '../../src/openapi/document.ts';
import { loadOpenApiFile, loadOpenApiObject } from '../../src/openapi/load-openapi.ts';
import { matchUrlToPaths } from '../../src/openapi/path-matcher.ts';
import type { DriftChange } from '../../src/transforms/drift/drift-model.ts';
import type { SingleDriftOperatorId } from '../../src/transforms/drift/drift-operators.ts';
import { singleDriftOperatorIds } from '../../src/transforms/drift/drift-operators.ts';
import { driftOpenApi } from '../../src/transforms/drift/openapi-drift.ts';
import type { HttpRequest } from '../../src/transforms/drift/request-mapper.ts';
import { createRequestMapper } from '../../src/transforms/drift/request-mapper.ts';
import { requireData } from '../require-data.ts';

const noData = requireData('wapiibench', 'openapi', 'real_world_specs', 'slack.yaml');
const apis = ['asana', 'google_calendar_v3', 'google_sheet_v4', 'slack'];

/** The change kinds each operator may log. */
const kindsOf: Record<SingleDriftOperatorId, readonly DriftChange['kind'][]> = {
  endpoint: ['endpoint-renamed', 'server-moved'],
  rename: ['parameter-renamed'],
  type: ['type-drifted'],
  'default-flip': ['default-flipped'],
  nest: ['nested-object'],
  'required-swap': ['required-to-optional', 'optional-to-required'],
};

function requestArguments(request: HttpRequest): { location: 'header' | 'query' | 'body'; name: string }[] {
  return [
    ...Object.keys(request.headers ?? {}).map((name) => ({ location: 'header' as const, name })),
    ...Object.keys(request.params ?? {}).map((name) => ({ location: 'query' as const, name })),
    ...Object.keys(request.data ?? {}).map((name) => ({ location: 'body' as const, name })),
  ];
}

function illegalArguments(spec: OpenApiDocument, request: HttpRequest): number {
  const path = matchUrlToPaths(spec, request.url)[0];
  return requestArguments(request).filter((argument) => !isLegalArgument(spec, { ...argument, method: request.method, path })).length;
}

describe('each drift operator on the WAPIIBench specs', { skip: noData }, () => {
  const specDirectory = noData ? '' : datasetPath('wapiibench', 'openapi', 'real_world_specs');
  const samples = noData ? [] : JSON.parse(readFileSync(datasetPath('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json'), 'utf8')) as
    { api: string; index: number; config: HttpRequest }[];

  for (const operator of singleDriftOperatorIds) {
    test(`${operator}: valid OpenAPI, deterministic, only its own changes; every expected request maps to a legal new request and back`, async () => {
      const kinds = new Map<string, number>();
      let changedRequests = 0;
      for (const api of apis) {
        const raw = parseYaml(readFileSync(join(specDirectory, `${api}.yaml`), 'utf8'), { maxAliasCount: -1 }) as JsonObject;
        const drifted = driftOpenApi(raw, operator, 42);
        assert.equal(canonicalJson(driftOpenApi(raw, operator, 42)), canonicalJson(drifted), `${api}: same seed, same bytes`);
        for (const entry of drifted.log) {
          for (const change of entry.changes) {
            assert.ok(kindsOf[operator].includes(change.kind), `${operator} ${api} ${entry.key}: logged ${change.kind}`);
            kinds.set(change.kind, (kinds.get(change.kind) ?? 0) + 1);
          }
        }
        const document = await loadOpenApiObject(drifted.document, `drifted-${operator}-${api}`);
        const original = await loadOpenApiFile(join(specDirectory, `${api}.yaml`));
        const mapper = createRequestMapper(drifted, (raw.servers as { url: string }[]).map((server) => server.url));
        for (const sample of samples.filter((candidate) => candidate.api === api)) {
          const where = `${operator} ${api}/${sample.index}`;
          const mapped = mapper.toNew(sample.config);
          assert.ok(mapped.ok, `${where}: ${mapped.ok ? '' : mapped.reason}`);
          const path = matchUrlToPaths(document, mapped.request.url)[0];
          assert.ok(path && findOperation(path, mapped.request.method), `${where}: ${mapped.request.method} ${mapped.request.url} is in the drifted spec`);
          assert.equal(illegalArguments(document, mapped.request), illegalArguments(original, sample.config), `${where}: legal arguments stay legal`);
          if (!jsonEqual(mapped.request, sample.config)) changedRequests += 1;
          const back = mapper.toOld(mapped.request);
          assert.ok(back.ok, where);
          assert.equal(back.request.url, sample.config.url, where);
          assert.equal(back.request.method, sample.config.method, where);
          for (const key of ['headers', 'params', 'data'] as const) {
            for (const [name, value] of Object.entries(sample.config[key] ?? {})) assert.deepEqual((back.request[key] ?? {})[name], value, `${where} ${key}.${name}`);
          }
        }
      }
      if (operator === 'nest') {
        // None of the four APIs has a required address/geo/coord parameter: nothing is nested, no request changes
        // (nesting on real data is checked on the StableToolBench tools, src/transforms/drift/drift-real-data.test.ts).
        assert.deepEqual([Object.fromEntries(kinds), changedRequests], [{}, 0]);
        return;
      }
      // Every other operator finds something to change in these four real APIs, and changes some expected
      // requests (a default flip changes none: it only changes what an omitted argument means).
      assert.ok(kindsOf[operator].some((kind) => (kinds.get(kind) ?? 0) > 0), `${operator}: ${JSON.stringify(Object.fromEntries(kinds))}`);
      if (operator !== 'default-flip') assert.ok(changedRequests > 0, `${operator}: no expected request changed`);
    });
  }

  test('the seed decides the stochastic operators: another seed, another change log', () => {
    const raw = parseYaml(readFileSync(join(specDirectory, 'asana.yaml'), 'utf8'), { maxAliasCount: -1 }) as JsonObject;
    for (const operator of ['required-swap', 'all'] as const) {
      assert.notEqual(canonicalJson(driftOpenApi(raw, operator, 42).log), canonicalJson(driftOpenApi(raw, operator, 43).log), operator);
    }
  });
});

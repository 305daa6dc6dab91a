/**
 * Hand-built cases that reach every verdict, every failure code and every Table V metric, with
 * values computed by hand (see the table in the last test).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '../../../src/core/json.ts';
import type { Score } from '../../../src/core/score.ts';
import type { Task } from '../../../src/core/task.ts';
import type { RecordedRequest } from '../../../src/sandbox/spec.ts';
import type { ArgumentVerdict } from '../../../src/suites/webapi/compare-request.ts';
import type { ProgramOutcome } from '../../../src/suites/webapi/score-request.ts';
import { scoreWebapiOutcome, scoreWebapiRequest } from '../../../src/suites/webapi/score-request.ts';
import type { SampleStatistics } from '../../../src/suites/webapi/sample-statistics.ts';
import { buildWebapiTask } from '../../../src/suites/webapi/webapi-task.ts';
import { summarizeWebapi } from '../../../src/suites/webapi/webapi-summary.ts';

const spec = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  servers: [{ url: 'https://api.test/v1' }],
  security: [{ bearer: [] }],
  paths: {
    '/pets': {
      get: { parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }, { name: 'tag', in: 'query', schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } },
      post: { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } } }, responses: { 200: { description: 'ok' } } },
    },
    '/pets/{petId}': { parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }], delete: { responses: { 200: { description: 'ok' } } } },
    '/owners': { get: { responses: { 200: { description: 'ok' } } } },
  },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, key: { type: 'apiKey', in: 'query', name: 'api_key' } } },
};

const accept = 'application/json, text/plain, */*';
const expectedConfig = { url: 'https://api.test/v1/pets', method: 'get', headers: { Accept: accept, Authorization: 'Bearer <token>' }, params: { limit: 50, tag: 'cat' } };

let task: Task;

before(() => {
  const directory = mkdtempSync(join(tmpdir(), 'webapi-scoring-'));
  const specPath = join(directory, 'pets.json');
  writeFileSync(specPath, JSON.stringify(spec));
  task = buildWebapiTask({
    id: 'webapi/pets/0', seed: 1, params: {}, api: 'pets', apiName: 'Pets', specReference: specPath, task: 'List 50 cats.',
    config: expectedConfig, setup: 'full', endpoint: 'chat', stats: {},
  });
});

function request(url: string, method: string, headers: Record<string, string>, params: JsonObject = {}, data?: JsonObject): RecordedRequest {
  return { client: 'axios', url, method, headers: { Accept: accept, ...headers }, params, bodyType: data ? 'json' : 'none', ...(data ? { data } : {}) };
}

const auth = { Authorization: 'Bearer <token>' };
const cases: Record<string, RecordedRequest> = {
  A: request('https://api.test/v1/pets', 'get', auth, { limit: 50, tag: 'cat' }),
  B: request('https://api.test/v1/pets', 'get', auth, { limit: '50', api_key: '<key>' }),
  C: request('https://api.test/v1/pets', 'get', { ...auth, 'X-Foo': '1' }, { limit: 50, tag: 'cat' }),
  D: request('https://api.test/v1/cats', 'post', auth, { limit: 50, tag: 'cat' }),
  E: request('https://api.test/v1/owners', 'get', auth, { limit: 50, tag: 'cat' }),
  F: request('https://api.test/v1/pets', 'patch', auth, { limit: 50, tag: 'cat' }),
  I: request('https://api.test/v1/pets', 'get', {}),
};

function statistics(score: Score): SampleStatistics {
  return score.details?.statistics as unknown as SampleStatistics;
}

function verdicts(score: Score): Record<string, ArgumentVerdict> {
  const comparison = score.details?.comparison as { arguments: { field: string; name: string; verdict: ArgumentVerdict; counted: boolean }[] } | undefined;
  return Object.fromEntries((comparison?.arguments ?? []).filter((judgement) => judgement.counted).map((judgement) => [`${judgement.field}.${judgement.name}`, judgement.verdict]));
}

describe('verdicts per argument and per sample', () => {
  test('correct request', async () => {
    const score = await scoreWebapiRequest(task, [cases.A]);
    assert.equal(score.passed, true);
    assert.equal(score.failure, undefined);
    assert.deepEqual(verdicts(score), { 'headers.Authorization': 'correct', 'params.limit': 'correct', 'params.tag': 'correct' });
    assert.equal(statistics(score).sampleVerdict, 'correct');
  });

  test('incorrect value (50 vs "50"), missing, unnecessary (security apiKey)', async () => {
    const score = await scoreWebapiRequest(task, [cases.B]);
    assert.deepEqual(verdicts(score), { 'headers.Authorization': 'correct', 'params.limit': 'incorrect-value', 'params.tag': 'missing', 'params.api_key': 'unnecessary' });
    assert.equal(score.failure, 'result.wrong');
    assert.deepEqual(statistics(score).counts, {
      all: { headers: 1, params: 3, all: 4 }, expected: { headers: 1, params: 2, all: 3 }, unexpected: { params: 1, all: 1 },
      correctName: { headers: 1, params: 1, all: 2 }, correctValue: { headers: 1, all: 1 }, missing: { params: 1, all: 1 },
      unnecessary: { params: 1, all: 1 }, illegal: {},
    });
  });

  test('illegal argument, illegal URL, illegal method, wrong URL', async () => {
    const illegalArgument = await scoreWebapiRequest(task, [cases.C]);
    assert.equal(verdicts(illegalArgument)['headers.X-Foo'], 'illegal');
    assert.equal(illegalArgument.failure, 'arguments.invalid');
    const illegalUrl = await scoreWebapiRequest(task, [cases.D]);
    assert.deepEqual([statistics(illegalUrl).urlVerdict, statistics(illegalUrl).methodVerdict, statistics(illegalUrl).sampleVerdict], ['illegal', 'illegal', 'illegal']);
    assert.equal(illegalUrl.failure, 'tool.unknown');
    const illegalMethod = await scoreWebapiRequest(task, [cases.F]);
    assert.deepEqual([statistics(illegalMethod).urlVerdict, statistics(illegalMethod).methodVerdict], ['correct', 'illegal']);
    assert.equal(illegalMethod.failure, 'tool.unknown');
    const wrongUrl = await scoreWebapiRequest(task, [cases.E]);
    assert.deepEqual([statistics(wrongUrl).urlVerdict, statistics(wrongUrl).methodVerdict, statistics(wrongUrl).sampleVerdict], ['wrong', 'correct', 'wrong']);
    assert.equal(wrongUrl.failure, 'result.wrong');
  });

  test('path parameters are arguments too; unexpected ones are judged against the expected endpoint', async () => {
    const score = await scoreWebapiRequest(task, [request('https://api.test/v1/pets/7', 'delete', auth)]);
    assert.deepEqual(verdicts(score), { 'headers.Authorization': 'correct', 'params.limit': 'missing', 'params.tag': 'missing', 'path_params.petId': 'illegal' });
    assert.deepEqual([statistics(score).urlVerdict, statistics(score).methodVerdict], ['wrong', 'wrong']);
  });

  test('Accept and Content-Type are never counted; only the first request is judged', async () => {
    const score = await scoreWebapiRequest(task, [request('https://api.test/v1/pets', 'get', { ...auth, 'Content-Type': 'application/json' }, { limit: 50, tag: 'cat' }), cases.D]);
    assert.equal(score.passed, true);
    assert.equal(statistics(score).counts.all.all, 3);
  });

  test('failure codes of programs that send nothing comparable', async () => {
    const outcomes: [ProgramOutcome, string, string][] = [
      [{ type: 'absent-request' }, 'output.unparsable', 'no_request'],
      [{ type: 'incomplete-request' }, 'output.unparsable', 'incomplete_request'],
      [{ type: 'syntax-error', message: 'Unexpected token' }, 'output.unparsable', 'runtime_error'],
      [{ type: 'runtime-error', message: 'ReferenceError: x is not defined' }, 'execution.error', 'runtime_error'],
      [{ type: 'limit-exceeded', message: 'time limit' }, 'limit.exceeded', 'runtime_error'],
      [{ type: 'completed', requests: [] }, 'execution.error', 'runtime_error'],
    ];
    for (const [outcome, failure, errorVerdict] of outcomes) {
      const score = await scoreWebapiOutcome(task, outcome);
      assert.equal(score.failure, failure, outcome.type);
      assert.equal(statistics(score).errorVerdict, errorVerdict);
      assert.deepEqual(statistics(score).counts.missing, { headers: 1, params: 2, all: 3 }, 'all expected arguments are missing');
    }
  });
});

describe('Table V metrics', () => {
  test('exact values on a hand-computed set of eight samples', async () => {
    const scores = [
      ...await Promise.all(['A', 'B', 'C', 'D', 'E', 'I'].map((name) => scoreWebapiRequest(task, [cases[name]]))),
      await scoreWebapiOutcome(task, { type: 'runtime-error', message: 'boom' }),
      await scoreWebapiOutcome(task, { type: 'absent-request' }),
    ];
    const { metrics, tables } = summarizeWebapi(scores.map((score) => ({ task, trial: 0, score })));
    // Samples: A correct; B wrong (1 wrong value, 1 missing, 1 unnecessary); C illegal argument; D illegal URL+method;
    // E wrong URL; I no arguments at all; G runtime error; H no request. 3 expected arguments each (24 in all).
    const expected: Record<string, number> = {
      executable: 6 / 8,
      correctImplementations: 1 / 8, correctImplementationsExecutable: 1 / 6,
      illegalImplementations: 2 / 8, illegalImplementationsExecutable: 2 / 6,
      correctUrls: 4 / 8, correctUrlsExecutable: 4 / 6,
      illegalUrls: 1 / 8, illegalUrlsExecutable: 1 / 6,
      correctMethods: 5 / 8, correctMethodsExecutable: 5 / 6,
      illegalMethods: 1 / 8, illegalMethodsExecutable: 1 / 6,
      correctArgumentNames: 14 / 24, correctArgumentNamesExecutable: 14 / 18,
      correctArgumentValues: 13 / 24, correctArgumentValuesExecutable: 13 / 18,
      missingArguments: 10 / 24, missingArgumentsExecutable: 4 / 18,
      unexpectedArguments: 2 / 26, unexpectedArgumentsExecutable: 2 / 20,
      unnecessaryArguments: 1 / 26, unnecessaryArgumentsExecutable: 1 / 20,
      illegalArguments: 1 / 26, illegalArgumentsExecutable: 1 / 20,
      // precision: A 1, B 2/3, C 3/4, D 1, E 1 (I retrieved nothing); (t) adds G and H as zeros
      meanArgumentPrecision: (1 + 2 / 3 + 3 / 4 + 1 + 1) / 7, meanArgumentPrecisionExecutable: (1 + 2 / 3 + 3 / 4 + 1 + 1) / 5,
      meanArgumentRecall: (1 + 2 / 3 + 1 + 1 + 1 + 0) / 8, meanArgumentRecallExecutable: (1 + 2 / 3 + 1 + 1 + 1 + 0) / 6,
      meanArgumentJaccard: (1 + 2 / 4 + 3 / 4 + 1 + 1 + 0) / 8, meanArgumentJaccardExecutable: (1 + 2 / 4 + 3 / 4 + 1 + 1 + 0) / 6,
      meanArgumentValueConditionalAccuracy: (1 + 1 / 2 + 1 + 1 + 1) / 7, meanArgumentValueConditionalAccuracyExecutable: (1 + 1 / 2 + 1 + 1 + 1) / 5,
      // H (no request) counts in Total errors only: the paper's row is the reference's errors_incomplete_request (0 here).
      totalErrors: 2, incompleteImplementations: 0, runtimeErrors: 1,
    };
    assert.deepEqual(Object.keys(metrics).sort(), Object.keys(expected).sort());
    for (const [name, value] of Object.entries(expected)) assert.ok(Math.abs(metrics[name] - value) < 1e-12, `${name}: ${metrics[name]} != ${value}`);
    assert.equal(tables[0].title, 'Evaluation results for Full Completion (paper Table III)');
    assert.deepEqual(tables[0].rows[0], ['Correct implementations (t)', 0.125]);
    assert.equal(tables[1].rows.length, 20);
    assert.deepEqual(tables[1].rows[17], ['Total errors', 2, null]);
  });

  test('no samples and no executable samples give zeros, not NaN', () => {
    assert.ok(Object.values(summarizeWebapi([]).metrics).every((value) => value === 0));
  });
});

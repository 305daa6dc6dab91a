/**
 * Hand-built cases where our verdict and the official WAPIIBench evaluator's (stg-tud/WAPIIBench
 * `evaluation.py` + `mock.js`, computed by hand from its code) are both stated: the ones we match and
 * the deliberate differences of README.md. Programs run in the real sandbox with the environment's
 * program host, as the code agent runs them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Score } from '../../../src/core/score.ts';
import type { Task } from '../../../src/core/task.ts';
import { createSandbox } from '../../../src/sandbox/index.ts';
import type { RecordedRequest } from '../../../src/sandbox/spec.ts';
import type { ArgumentVerdict } from '../../../src/suites/webapi/compare-request.ts';
import { programOutcomeOf, webapiProgramHost } from '../../../src/suites/webapi/run-program.ts';
import type { SampleStatistics } from '../../../src/suites/webapi/sample-statistics.ts';
import { scoreWebapiOutcome, scoreWebapiRequest } from '../../../src/suites/webapi/score-request.ts';
import { computeWebapiMetrics } from '../../../src/suites/webapi/webapi-metrics.ts';
import { buildWebapiTask } from '../../../src/suites/webapi/webapi-task.ts';
import type { RequestConfig } from '../../../src/suites/webapi/request-config.ts';

const spec = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  servers: [{ url: 'https://api.test/v1' }],
  security: [{ bearer: [] }],
  paths: {
    '/pets': { get: { parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }, { name: 'tag', in: 'query', schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } } },
    '/pets/{petId}': { parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }], delete: { responses: { 200: { description: 'ok' } } } },
    '/owners': { get: { responses: { 200: { description: 'ok' } } } },
  },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
};

const accept = 'application/json, text/plain, */*';
const auth = { Authorization: 'Bearer <token>' };
const sandbox = createSandbox({ poolSize: 1 });
let specPath: string;
let listCats: Task;
let deletePet: Task;
let percentTag: Task;

function task(id: string, config: RequestConfig): Task {
  return buildWebapiTask({ id, seed: 1, params: {}, api: 'pets', apiName: 'Pets', specReference: specPath, task: 'A pet task.', config, setup: 'full', endpoint: 'chat', stats: {} });
}

before(() => {
  specPath = join(mkdtempSync(join(tmpdir(), 'webapi-parity-')), 'pets.json');
  writeFileSync(specPath, JSON.stringify(spec));
  listCats = task('webapi/pets/0', { url: 'https://api.test/v1/pets', method: 'get', headers: { Accept: accept, ...auth }, params: { limit: 50, tag: 'cat' } });
  deletePet = task('webapi/pets/1', { url: 'https://api.test/v1/pets/7', method: 'delete', headers: { Accept: accept, ...auth } });
  percentTag = task('webapi/pets/2', { url: 'https://api.test/v1/pets', method: 'get', headers: { Accept: accept, ...auth }, params: { tag: '50%' } });
});

after(() => sandbox.dispose());

/** Runs a chat answer as the code agent does (the environment's program host) and scores it. */
async function scoreAnswer(target: Task, code: string, timeLimitMs = 2000): Promise<Score> {
  const host = webapiProgramHost(target.starter ?? '', 'chat', timeLimitMs, () => undefined);
  const extraction = host.extractProgram(`\`\`\`javascript\n${code}\n\`\`\``);
  assert.equal(extraction.type, 'program');
  if (extraction.type !== 'program') throw new Error('no program');
  const result = await sandbox.run({ code: extraction.code, ...(host.http ? { http: host.http } : {}), limits: { timeLimitMs } });
  return scoreWebapiOutcome(target, programOutcomeOf({ extraction, result, attempts: 1 }));
}

function statistics(score: Score): SampleStatistics {
  return score.details?.statistics as unknown as SampleStatistics;
}

function verdicts(score: Score): Record<string, ArgumentVerdict> {
  const comparison = score.details?.comparison as { arguments: { field: string; name: string; verdict: ArgumentVerdict; counted: boolean }[] } | undefined;
  return Object.fromEntries((comparison?.arguments ?? []).filter((judgement) => judgement.counted).map((judgement) => [`${judgement.field}.${judgement.name}`, judgement.verdict]));
}

const correctCall = "axios.get('https://api.test/v1/pets', { headers: { Authorization: 'Bearer <token>' }, params: { limit: 50, tag: 'cat' } });";

describe('item 11: the cut call runs to its end', () => {
  test('a throw after the first request is a runtime error (official: EXECUTION_ERROR, runtime_error)', async () => {
    // The reference cuts at the first `.then` (highest priority), so the ReferenceError line runs after the
    // first request; node exits 1 and the official verdict is EXECUTION_ERROR -> runtime_error, 3 missing.
    // Before suite version 3 the run stopped at the first request and this scored correct.
    const score = await scoreAnswer(listCats, `${correctCall}\nconsole.log(response.data);\naxios.get('https://api.test/v1/owners').then((r) => r);`);
    assert.equal(score.failure, 'execution.error');
    assert.match(score.reason ?? '', /after sending its first request: ReferenceError/);
    assert.equal(statistics(score).errorVerdict, 'runtime_error');
    assert.deepEqual(statistics(score).counts.missing, { headers: 1, params: 2, all: 3 });
  });

  test('a TypeError on the call\'s own result is a runtime error (official: EXECUTION_ERROR)', async () => {
    // Cut at `;` (no `.then`, `});`, `}\n);` or `);`): `.data` of the returned promise is undefined, so
    // reading `.items` throws in node as here.
    const score = await scoreAnswer(listCats, "axios.get('https://api.test/v1/pets', { headers: { Authorization: 'Bearer <token>' }, params: { limit: 50, tag: 'cat' } }).data.items;");
    assert.equal(score.failure, 'execution.error');
    assert.equal(statistics(score).errorVerdict, 'runtime_error');
  });

  test('excess code that merely sends more requests: the first request is judged (official: normally the last)', async () => {
    // The mock writes every request's config to the same file, so the official verdict is the last write's,
    // normally the second request (GET /owners: wrong URL -> wrong). The paper judges the invocation the
    // truncation keeps: here the first, correct.
    const score = await scoreAnswer(listCats, `${correctCall}\naxios.get('https://api.test/v1/owners').then((r) => r);`);
    assert.equal(score.passed, true, score.reason);
    assert.equal(statistics(score).sampleVerdict, 'correct');
  });

  test('a limit hit after the first request leaves the first request judged (official: node would hang)', async () => {
    const score = await scoreAnswer(listCats, `${correctCall}\nwhile (true) {}\naxios.get('https://api.test/v1/owners').then((r) => r);`, 300);
    assert.equal(score.passed, true, score.reason);
    assert.equal(score.details?.limitAfterFirstRequest, 'time limit');
  });

  test('the response is the mock\'s reply([200]): no body, so response.data is undefined', async () => {
    const score = await scoreAnswer(listCats, `${correctCall}\nif ((await axios.get('https://api.test/v1/owners')).data !== undefined) throw new Error('a body');\naxios.get('x').then((r) => r);`);
    assert.equal(score.passed, true, score.reason);
  });
});

describe('item 12: a URL without its server is illegal', () => {
  test("'/pets/7' for DELETE https://api.test/v1/pets/7: official correct (removeprefix leaves it, the path matches), ours illegal", async () => {
    // Official: url CORRECT, method CORRECT, path_params.petId '7' CORRECT, Authorization CORRECT -> correct.
    const score = await scoreAnswer(deletePet, "axios.delete('/pets/7', { headers: { Authorization: 'Bearer <token>' } });");
    assert.equal(score.failure, 'tool.unknown');
    assert.deepEqual([statistics(score).urlVerdict, statistics(score).methodVerdict, statistics(score).sampleVerdict], ['illegal', 'correct', 'illegal']);
    assert.deepEqual(verdicts(score), { 'headers.Authorization': 'correct', 'path_params.petId': 'missing' });
    const withServer = await scoreAnswer(deletePet, "axios.delete('https://api.test/v1/pets/7', { headers: { Authorization: 'Bearer <token>' } });");
    assert.equal(withServer.passed, true, withServer.reason);
  });
});

describe('item 13: documented differences and the incomplete count', () => {
  test('arguments of a different legal endpoint are judged against the expected one (official: the same)', async () => {
    // Official validate_argument(key, field, expected method, expected path): petId is not a parameter of
    // GET /pets -> ILLEGAL_KEY -> sample illegal. Judged against the generated DELETE /pets/{petId} (the paper's
    // wording) it would be legal (unnecessary) and the sample wrong.
    const request: RecordedRequest = { client: 'axios', url: 'https://api.test/v1/pets/7', method: 'delete', headers: { Accept: accept, ...auth }, params: {}, bodyType: 'none' };
    const score = await scoreWebapiRequest(listCats, [request]);
    assert.equal(verdicts(score)['path_params.petId'], 'illegal');
    assert.equal(statistics(score).sampleVerdict, 'illegal');
  });

  test("a malformed '%' in the URL is kept and judged (official: decodeURIComponent throws in the mock -> runtime_error)", async () => {
    const score = await scoreAnswer(percentTag, "axios.get('https://api.test/v1/pets?tag=50%', { headers: { Authorization: 'Bearer <token>' } });");
    assert.equal(score.passed, true, score.reason);
    assert.equal(verdicts(score)['params.tag'], 'correct');
  });

  test('Incomplete implementations counts incomplete calls only (official errors_incomplete_request: 1 of 3 errors)', async () => {
    const samples = await Promise.all([
      scoreWebapiOutcome(listCats, { type: 'absent-request' }),
      scoreWebapiOutcome(listCats, { type: 'incomplete-request' }),
      scoreWebapiOutcome(listCats, { type: 'runtime-error', message: 'ReferenceError: x is not defined' }),
    ]);
    const metrics = computeWebapiMetrics(samples.map(statistics));
    // Official: errors_total 3, errors_no_request 1, errors_incomplete_request 1, errors_runtime_error 1.
    assert.deepEqual([metrics.totalErrors, metrics.incompleteImplementations, metrics.runtimeErrors], [3, 1, 1]);
  });
});

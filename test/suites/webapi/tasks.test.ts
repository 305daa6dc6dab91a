import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/core/errors.ts';
import { canonicalJson } from '../../../src/core/json.ts';
import { datasetPath } from '../../../src/core/data-location.ts';
import { findOperation } from '../../../src/openapi/document.ts';
import { isLegalArgument } from '../../../src/openapi/argument-legality.ts';
import { loadOpenApiFile } from '../../../src/openapi/load-openapi.ts';
import { matchUrlToPaths } from '../../../src/openapi/path-matcher.ts';
import { createSchemaValidator } from '../../../src/openapi/schema-validator.ts';
import { argumentsOf } from '../../../src/suites/webapi/compare-request.ts';
import { generateSamples } from '../../../src/suites/webapi/generate-from-spec.ts';
import { codeGenerationPrompt, starterCode } from '../../../src/suites/webapi/prompt.ts';
import { renderAxiosCall } from '../../../src/suites/webapi/render-axios.ts';
import { resolvePortablePath, toPortablePath } from '../../../src/core/portable-path.ts';
import { importWapiibenchFile } from '../../../src/suites/webapi/wapiibench-data.ts';
import { fixturePath, requireData } from '../../require-data.ts';

const specDirectory = datasetPath('wapiibench', 'openapi', 'real_world_specs');
const combinedFile = datasetPath('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json');

const needsData = requireData('wapiibench');

describe('WAPIIBench import', () => {
  test('the combined file: 395 samples, ids from api and index, specs found by walking up', { skip: needsData }, () => {
    const samples = importWapiibenchFile(combinedFile);
    assert.equal(samples.length, 395);
    const counts: Record<string, number> = {};
    for (const sample of samples) counts[sample.api] = (counts[sample.api] ?? 0) + 1;
    assert.deepEqual(counts, { asana: 167, google_calendar_v3: 37, google_sheet_v4: 17, slack: 174 });
    assert.equal(samples[0].specPath, join(specDirectory, 'asana.yaml'));
    assert.deepEqual(samples[0].config.params, { parent: '159874', limit: 50 });
    assert.equal(samples.filter((sample) => sample.checks !== 'OK').length, 4);
    assert.equal(toPortablePath(samples[0].specPath), 'shared:wapiibench/openapi/real_world_specs/asana.yaml');
    assert.equal(resolvePortablePath('shared:wapiibench/openapi/real_world_specs/asana.yaml'), samples[0].specPath);
  });

  test('a per-API file (index = position), --set spec and --set specs', { skip: needsData }, () => {
    const slack = importWapiibenchFile(datasetPath('wapiibench', 'data', 'synthetic', 'slack', 'test_data_corrected.json'));
    assert.equal(slack.length, 174);
    assert.deepEqual([slack[5].api, slack[5].index], ['slack', 5]);
    const directory = mkdtempSync(join(tmpdir(), 'wapii-'));
    const data = join(directory, 'tasks.json');
    writeFileSync(data, JSON.stringify({ api: 'pets', samples: [{ task: 'List pets.', config: { url: 'https://p.test/pets', method: 'GET' } }] }));
    mkdirSync(join(directory, 'specs'));
    writeFileSync(join(directory, 'specs', 'pets.json'), '{}');
    assert.equal(importWapiibenchFile(data, { specs: join(directory, 'specs') })[0].specPath, join(directory, 'specs', 'pets.json'));
    assert.equal(importWapiibenchFile(data, { spec: join(directory, 'specs', 'pets.json') })[0].config.method, 'get');
    assert.throws(() => importWapiibenchFile(data), (error: unknown) => error instanceof ConfigError && /no OpenAPI spec for api 'pets'/.test(error.message));
  });

  test('bad files name the item and field', () => {
    const directory = mkdtempSync(join(tmpdir(), 'wapii-'));
    const bad = join(directory, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ api: 'asana', index: 0, task: 'x', config: { url: 'https://a' } }]));
    assert.throws(() => importWapiibenchFile(bad), (error: unknown) => error instanceof ConfigError && /item 0: field 'config.method'/.test(error.message));
    assert.throws(() => importWapiibenchFile(join(directory, 'missing.json')), (error: unknown) => error instanceof ConfigError && error.code === 'input.unreadable');
  });

  test('every gold argument is legal for its endpoint, except slack 102 (its body fields are query parameters in the spec)', { skip: needsData }, async () => {
    const illegal: string[] = [];
    for (const sample of importWapiibenchFile(combinedFile)) {
      const document = await loadOpenApiFile(sample.specPath);
      const [path] = matchUrlToPaths(document, sample.config.url);
      assert.ok(findOperation(path, sample.config.method), `${sample.api}/${sample.index} endpoint exists`);
      const fields = argumentsOf(document, sample.config).fields;
      const locations = { headers: 'header', params: 'query', path_params: 'path', data: 'body' } as const;
      for (const [field, location] of Object.entries(locations)) {
        for (const name of Object.keys(fields[field as keyof typeof locations] ?? {})) {
          if (!isLegalArgument(document, { location, name, method: sample.config.method, path })) illegal.push(`${sample.api}/${sample.index} ${field}.${name}`);
        }
      }
    }
    assert.deepEqual(illegal, ['slack/102 data.trigger_id', 'slack/102 data.dialog']);
  });
});

describe('prompt and starter code', () => {
  test('full and argument completion starters; the prompt ends with the opened fence and the starter', () => {
    const config = { url: 'https://www.googleapis.com/calendar/v3/calendars', method: 'post' };
    assert.equal(starterCode('Create a calendar.', 'full', config), "// Create a calendar.\nconst axios = require('axios');\n\naxios.");
    assert.equal(starterCode('Create a calendar.', 'argument', config), "// Create a calendar.\nconst axios = require('axios');\n\naxios.post('https://www.googleapis.com/calendar/v3/calendars',");
    const prompt = codeGenerationPrompt({ apiName: 'Google Calendar', endpoint: 'chat', starter: 'STARTER' });
    assert.match(prompt, /about the Google Calendar API\. Complete the following code snippet without any explanations:\n\n```javascript\nSTARTER$/);
    assert.match(prompt, /axios\.method\(url\[, config\]\)/);
    assert.doesNotMatch(codeGenerationPrompt({ apiName: 'Slack Web', endpoint: 'completions', starter: '' }), /without any explanations/);
  });

  test('rendered calls', () => {
    assert.equal(renderAxiosCall({ url: 'https://a.test/x', method: 'get', headers: { Accept: 'application/json, text/plain, */*' } }), "axios.get('https://a.test/x');\n");
    assert.equal(
      renderAxiosCall({ url: 'https://a.test/x', method: 'post', headers: { Accept: 'application/json, text/plain, */*', 'Content-Type': 'application/json' }, params: { q: 1 } }),
      "axios.post('https://a.test/x', null, {\n  params: {\n    \"q\": 1\n  }\n});\n",
    );
    assert.equal(renderAxiosCall({ url: 'https://a.test/x', method: 'delete', data: { id: 'a' } }), "axios.delete('https://a.test/x', {\n  data: {\n    \"id\": \"a\"\n  }\n});\n");
  });
});

describe('generated tasks', { skip: needsData }, () => {
  test('seeded, schema-valid, legal, and the expected URL maps back to the chosen operation', async () => {
    for (const api of ['asana', 'slack']) {
      const document = await loadOpenApiFile(join(specDirectory, `${api}.yaml`));
      const validator = createSchemaValidator(document);
      const samples = generateSamples(document, { count: 40, seed: 3, optionalProbability: 0.5 });
      assert.equal(samples.length, 40);
      assert.equal(canonicalJson(generateSamples(document, { count: 40, seed: 3, optionalProbability: 0.5 }).map((sample) => [sample.task, sample.config])), canonicalJson(samples.map((sample) => [sample.task, sample.config])));
      assert.notEqual(canonicalJson(generateSamples(document, { count: 40, seed: 4, optionalProbability: 0.5 }).map((sample) => sample.config)), canonicalJson(samples.map((sample) => sample.config)));
      assert.equal(new Set(samples.map((sample) => `${sample.operation.method} ${sample.operation.template}`)).size, 40, 'no operation repeats before all were used');
      for (const sample of samples) {
        const [path] = matchUrlToPaths(document, sample.config.url);
        assert.equal(path?.template, sample.operation.template);
        const fields = argumentsOf(document, sample.config).fields;
        const locations = { headers: 'header', params: 'query', path_params: 'path', data: 'body' } as const;
        for (const [field, location] of Object.entries(locations)) {
          for (const name of Object.keys(fields[field as keyof typeof locations] ?? {})) {
            assert.ok(isLegalArgument(document, { location, name, method: sample.config.method, path }), `${sample.operation.template} ${field}.${name}`);
          }
        }
        for (const parameter of sample.operation.parameters.filter((candidate) => candidate.location === 'query')) {
          const value = sample.config.params?.[parameter.name];
          if (value !== undefined) assert.deepEqual(validator.check(parameter.pointer, value), { valid: true }, `${sample.operation.template} ${parameter.name}`);
        }
        const media = sample.operation.requestBody?.content.find((candidate) => candidate.mediaType === sample.config.headers?.['Content-Type']);
        if (sample.config.data && media?.mediaType === 'application/json') assert.deepEqual(validator.check(media.pointer, sample.config.data), { valid: true });
        for (const { value } of sample.values) assert.ok(sample.task.includes(JSON.stringify(value)), 'the task states every value');
      }
    }
  });
});

describe('model phrasing', () => {
  test('a rephrasing is kept only when it states every value verbatim', async () => {
    const { rephraseTask } = await import('../../../src/suites/webapi/generate-from-spec.ts');
    const { createModelSource } = await import('../../../src/models/registry.ts');
    const document = await loadOpenApiFile(fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml'));
    const [first, second] = generateSamples(document, { count: 2, seed: 1, optionalProbability: 0 });
    const keep = `Please do this with ${first.values.map(({ value }) => (typeof value === 'string' ? value : JSON.stringify(value))).join(' and ')}.`;
    const directory = mkdtempSync(join(tmpdir(), 'phrasing-'));
    const file = join(directory, 'phrasing.jsonl');
    writeFileSync(file, [
      JSON.stringify({ taskId: 'webapi/phrasing/0', output: keep }),
      JSON.stringify({ taskId: 'webapi/phrasing/1', output: 'Do the thing.' }),
    ].join('\n'));
    const model = createModelSource(`replay/${file}`);
    assert.ok(first.values.length > 0);
    assert.equal(await rephraseTask(model, first, 0), keep);
    assert.equal(await rephraseTask(model, second, 1), second.task, 'a rephrasing that drops values falls back to the template');
  });
});

describe('knob errors', () => {
  test('spec with specs, phrasing=model without a model, and an unknown knob fail before anything runs', async () => {
    const { webapiSuite } = await import('../../../src/suites/webapi/index.ts');
    const { resolveKnobs } = await import('../../../src/suites/knob.ts');
    const params = (raw: Record<string, string>) => resolveKnobs('webapi', webapiSuite.knobs, raw);
    await assert.rejects(webapiSuite.generate({ seed: 0, count: 1, params: params({ spec: 'a.yaml', specs: 'dir' }) }), (error: unknown) => error instanceof ConfigError && /exclude each other/.test(error.message));
    await assert.rejects(
      webapiSuite.generate({ seed: 0, count: 1, params: params({ spec: fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml'), phrasing: 'model' }) }),
      (error: unknown) => error instanceof ConfigError && /phrasing=model needs a model/.test(error.message),
    );
    assert.throws(() => params({ setup: 'half' }), (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid-knob');
    assert.throws(() => params({ colour: 'red' }), (error: unknown) => error instanceof ConfigError && error.code === 'config.unknown-knob');
  });
});

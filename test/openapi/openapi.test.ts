import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/core/errors.ts';
import { Rng } from '../../src/core/rng.ts';
import {
  createSchemaValidator, extractPathParameters, findOperation, isLegalArgument, loadOpenApiFile, loadOpenApiObject,
  matchUrlToPaths, sampleSchemaValue,
} from '../../src/openapi/index.ts';

const petstore = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  servers: [{ url: 'https://api.example.com/{version}', variables: { version: { default: 'v1' } } }],
  security: [{ key: [] }],
  paths: {
    '/pets': {
      get: { parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 50 } }], responses: { 200: { description: 'ok' } } },
      post: {
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
        responses: { 201: { description: 'ok' } },
      },
    },
    '/pets/{petId}': {
      parameters: [{ $ref: '#/components/parameters/PetId' }, { name: 'X-Trace', in: 'header', schema: { type: 'string' } }],
      get: { responses: { 200: { description: 'ok' } } },
      delete: { security: [{ bearer: [] }], responses: { 204: { description: 'ok' } } },
    },
    '/pets/{petId}:archive': {
      parameters: [{ $ref: '#/components/parameters/PetId' }],
      post: { responses: { 200: { description: 'ok' } } },
    },
    '/pets/mine': { get: { responses: { 200: { description: 'ok' } } } },
  },
  components: {
    parameters: { PetId: { name: 'petId', in: 'path', required: true, schema: { type: 'string' } } },
    securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'api_key' }, bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Category: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Category' } } } },
      NewPet: {
        allOf: [
          { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
          { type: 'object', properties: { tag: { type: 'string', enum: ['cat', 'dog'] }, category: { $ref: '#/components/schemas/Category' }, born: { type: 'string', format: 'date' } } },
        ],
      },
    },
  },
};

describe('OpenAPI loading', () => {
  test('resolves $refs, keeps circular schemas and substitutes server variables', async () => {
    const document = await loadOpenApiObject(structuredClone(petstore), 'petstore');
    assert.deepEqual(document.serverUrls, ['https://api.example.com/v1']);
    assert.equal(document.paths.length, 4);
    const post = findOperation(document.paths[0], 'post');
    const schema = post?.requestBody?.content[0].schema;
    assert.ok(schema);
    const category = (schema.allOf as { properties?: Record<string, { properties: { children: { items: unknown } } }> }[])[1].properties?.category;
    assert.equal(category?.properties.children.items, category, 'the circular Category schema is the same object');
    const item = findOperation(document.paths[1], 'get');
    assert.deepEqual(item?.parameters.map((parameter) => `${parameter.location}:${parameter.name}`), ['path:petId', 'header:X-Trace']);
    assert.deepEqual(findOperation(document.paths[1], 'delete')?.security, ['bearer']);
    assert.deepEqual(item?.security, ['key']);
  });

  test('reads YAML and JSON files; bad files fail with a ConfigError naming the problem', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'openapi-'));
    writeFileSync(join(directory, 'spec.json'), JSON.stringify(petstore));
    writeFileSync(join(directory, 'spec.yaml'), 'openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /a:\n    get:\n      responses: {"200": {description: ok}}\n');
    writeFileSync(join(directory, 'swagger.yaml'), 'swagger: "2.0"\ninfo: {title: T, version: "1"}\npaths: {}\n');
    writeFileSync(join(directory, 'invalid.yaml'), 'openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /a:\n    get:\n      responses: oops\n');
    writeFileSync(join(directory, 'broken.yaml'), 'openapi: [3.0\n');
    writeFileSync(join(directory, 'pet.yaml'), 'type: object\nproperties:\n  name: {type: string}\n');
    writeFileSync(join(directory, 'external.yaml'), 'openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /pets:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {$ref: "./pet.yaml"}\n      responses: {"200": {description: ok}}\n');
    const external = await loadOpenApiFile(join(directory, 'external.yaml'));
    assert.equal(isLegalArgument(external, { location: 'body', name: 'name', method: 'post', path: external.paths[0] }), true, 'external $ref resolved');
    assert.equal((await loadOpenApiFile(join(directory, 'spec.json'))).paths.length, 4);
    assert.equal((await loadOpenApiFile(join(directory, 'spec.yaml'))).paths[0].template, '/a');
    await assert.rejects(loadOpenApiFile(join(directory, 'swagger.yaml')), (error: unknown) => error instanceof ConfigError && /not an OpenAPI 3 document/.test(error.message));
    await assert.rejects(loadOpenApiFile(join(directory, 'invalid.yaml')), (error: unknown) => error instanceof ConfigError && /is invalid/.test(error.message));
    await assert.rejects(loadOpenApiFile(join(directory, 'broken.yaml')), (error: unknown) => error instanceof ConfigError && error.code === 'input.invalid');
    await assert.rejects(loadOpenApiFile(join(directory, 'missing.yaml')), (error: unknown) => error instanceof ConfigError && error.code === 'input.unreadable');
  });
});

describe('URL to path template', () => {
  test('ranks by fewest placeholders, then the longest template', async () => {
    const document = await loadOpenApiObject(structuredClone(petstore), 'petstore');
    const templates = (url: string) => matchUrlToPaths(document, url).map((path) => path.template);
    assert.deepEqual(templates('https://api.example.com/v1/pets/mine'), ['/pets/mine', '/pets/{petId}']);
    assert.deepEqual(templates('https://api.example.com/v1/pets/7:archive'), ['/pets/{petId}:archive', '/pets/{petId}']);
    assert.deepEqual(templates('https://api.example.com/v1/pets/7'), ['/pets/{petId}']);
    assert.deepEqual(templates('https://api.example.com/v1/pets/7/toys'), []);
    assert.deepEqual(templates('https://other.example.com/v1/pets'), [], 'another server does not match');
    assert.deepEqual(templates('/pets'), ['/pets'], 'a relative URL is matched as a path');
    const [archive] = matchUrlToPaths(document, 'https://api.example.com/v1/pets/7:archive');
    assert.deepEqual(extractPathParameters(document, archive, 'https://api.example.com/v1/pets/7:archive'), { petId: '7' });
  });
});

describe('argument legality', () => {
  test('declared parameters, body properties, security credentials, Accept and Content-Type', async () => {
    const document = await loadOpenApiObject(structuredClone(petstore), 'petstore');
    const [pets, pet] = document.paths;
    const legal = (location: 'path' | 'query' | 'header' | 'body', name: string, method: string, path = pets) => isLegalArgument(document, { location, name, method, path });
    assert.equal(legal('query', 'limit', 'get'), true);
    assert.equal(legal('query', 'limit', 'post'), false, 'a parameter of another operation');
    assert.equal(legal('header', 'limit', 'get'), false, 'the right name in the wrong location');
    assert.equal(legal('body', 'name', 'post'), true, 'allOf member property');
    assert.equal(legal('body', 'category', 'post'), true);
    assert.equal(legal('body', 'children', 'post'), false, 'nested properties are not top-level');
    assert.equal(legal('path', 'petId', 'delete', pet), true, 'path-item parameter');
    assert.equal(legal('header', 'X-Trace', 'get', pet), true);
    assert.equal(legal('query', 'api_key', 'get'), true, 'apiKey credential in its location');
    assert.equal(legal('header', 'api_key', 'get'), false);
    assert.equal(legal('header', 'Authorization', 'get'), true, 'http scheme credential');
    assert.equal(legal('header', 'authorization', 'get'), false, 'names compare exactly');
    assert.equal(legal('header', 'Accept', 'get'), true);
    assert.equal(legal('header', 'Content-Type', 'get'), false);
    assert.equal(legal('header', 'Content-Type', 'post'), true);
    assert.equal(isLegalArgument(document, { location: 'query', name: 'limit', method: 'get', path: undefined }), false);
    assert.equal(isLegalArgument(document, { location: 'header', name: 'Authorization', method: 'get', path: undefined }), true);
  });
});

describe('schema values', () => {
  test('sampled values are schema-valid (ajv from the bundled spec, circular schema included) and seeded', async () => {
    const document = await loadOpenApiObject(structuredClone(petstore), 'petstore');
    const validator = createSchemaValidator(document);
    const media = findOperation(document.paths[0], 'post')?.requestBody?.content[0];
    assert.ok(media);
    for (let seed = 0; seed < 30; seed += 1) {
      const value = sampleSchemaValue(media.schema, new Rng(seed), { optionalProbability: 0.8 });
      assert.deepEqual(validator.check(media.pointer, value), { valid: true }, JSON.stringify(value));
      assert.deepEqual(sampleSchemaValue(media.schema, new Rng(seed), { optionalProbability: 0.8 }), value);
    }
    assert.equal(validator.check(media.pointer, { name: '' }).valid, false);
    const limit = findOperation(document.paths[0], 'get')?.parameters[0];
    assert.ok(limit);
    assert.deepEqual(validator.check(limit.pointer, 51), { valid: false, errors: ['/ must be <= 50'] });
    assert.deepEqual(validator.check(document.paths[1].pathItemParameters[0].pointer, 'abc'), { valid: true }, 'pointer through a $ref parameter');
    const bounded = await loadOpenApiObject({
      openapi: '3.0.0', info: { title: 'T', version: '1' },
      paths: { '/a': { get: { parameters: [{ name: 'n', in: 'query', schema: { type: 'integer', minimum: 0, exclusiveMinimum: true, nullable: true } }], responses: { 200: { description: 'ok' } } } } },
    }, 'bounded');
    const boundedValidator = createSchemaValidator(bounded);
    const n = bounded.paths[0].operations[0].parameters[0];
    assert.equal(boundedValidator.check(n.pointer, 0).valid, false, 'OpenAPI 3.0 boolean exclusiveMinimum');
    assert.equal(boundedValidator.check(n.pointer, 1).valid, true);
    assert.equal(boundedValidator.check(n.pointer, null).valid, true, 'nullable');
  });
});

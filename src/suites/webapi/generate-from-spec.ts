/**
 * Fresh webapi tasks from any OpenAPI 3 spec: pick operations with the seed, fill the path, the
 * required and some optional arguments with schema-valid values (checked with ajv), add the
 * credential of the operation's first security scheme, compute the expected request config, and
 * render the task text (deterministically, or rephrased by a model with every value kept).
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import { lastAssistantText } from '../../core/message.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import type { ModelSource } from '../../models/spec.ts';
import type { OpenApiDocument, OpenApiMediaType, OpenApiOperation, OpenApiParameter } from '../../openapi/document.ts';
import { listOperations } from '../../openapi/document.ts';
import { createSchemaValidator } from '../../openapi/schema-validator.ts';
import type { SchemaValidator } from '../../openapi/schema-validator.ts';
import { sampleSchemaValue } from '../../openapi/schema-sampler.ts';
import type { RequestConfig } from './request-config.ts';

export type GeneratedSample = {
  operation: OpenApiOperation;
  config: RequestConfig;
  task: string;
  /** Named values the task text must state (for model phrasing checks). */
  values: { name: string; value: JsonValue }[];
};

export type GenerateOptions = { count: number; seed: number; optionalProbability: number };

const generatedMethods = new Set(['get', 'put', 'post', 'delete', 'patch']);
const skippedHeaders = new Set(['accept', 'content-type', 'authorization', 'content-length', 'user-agent', 'host']);
const acceptHeader = 'application/json, text/plain, */*';
const attempts = 8;

export function generateSamples(document: OpenApiDocument, options: GenerateOptions): GeneratedSample[] {
  const samples: GeneratedSample[] = [];
  for (const sample of streamSamples(document, options)) {
    if (samples.length === options.count) break;
    samples.push(sample);
  }
  return samples;
}

/**
 * generateSamples one at a time, for as long as the caller reads (or until no operation is usable): sample i is the
 * same whatever count is asked for, so a run of 100,000 tasks makes each as it is needed and never holds them all.
 */
export function* streamSamples(document: OpenApiDocument, options: Omit<GenerateOptions, 'count'>): Generator<GeneratedSample> {
  const operations = listOperations(document).filter((operation) => generatedMethods.has(operation.method) && !operation.deprecated);
  if (operations.length === 0) return;
  const validator = createSchemaValidator(document);
  const rng = new Rng(options.seed).child('webapi-generate');
  let made = 0;
  let order: OpenApiOperation[] = [];
  let round = 0;
  // Every operation once (shuffled) before any repeats; an operation whose values cannot be made valid is dropped.
  const usable = new Set(operations);
  while (usable.size > 0) {
    if (order.length === 0) {
      order = rng.child('order', round).shuffle([...usable]);
      round += 1;
    }
    const operation = order.shift() as OpenApiOperation;
    const sample = sampleOperation(document, operation, validator, rng.child('sample', made, operation.method, operation.template), options.optionalProbability);
    if (sample) {
      made += 1;
      yield sample;
    } else usable.delete(operation);
  }
}

function sampleOperation(document: OpenApiDocument, operation: OpenApiOperation, validator: SchemaValidator, rng: Rng, optionalProbability: number): GeneratedSample | undefined {
  const values: { name: string; value: JsonValue }[] = [];
  let url = `${document.serverUrls[0]}${operation.template}`;
  const pathParameters = new Map(operation.parameters.filter((parameter) => parameter.location === 'path').map((parameter) => [parameter.name, parameter]));
  for (const placeholder of operation.template.match(/\{[^}]*\}/g) ?? []) {
    const name = placeholder.slice(1, -1);
    const value = pathValue(pathParameters.get(name), validator, rng.child('path', name));
    if (value === undefined) return undefined;
    url = url.replace(placeholder, value);
    values.push({ name, value });
  }
  const headers: JsonObject = { Accept: acceptHeader };
  const params: JsonObject = {};
  for (const parameter of operation.parameters) {
    if (parameter.location !== 'query' && parameter.location !== 'header') continue;
    if (parameter.location === 'header' && skippedHeaders.has(parameter.name.toLowerCase())) continue;
    const include = parameter.required || rng.child('include', parameter.location, parameter.name).bool(optionalProbability);
    if (!include) continue;
    const value = validValue(parameter.schema, parameter.pointer, validator, rng.child(parameter.location, parameter.name), parameter.name, 0);
    if (value === undefined) {
      if (parameter.required) return undefined;
      continue;
    }
    // Header values travel as strings.
    const stored = parameter.location === 'header' ? scalarText(value) : value;
    if (stored === undefined) {
      if (parameter.required) return undefined;
      continue;
    }
    (parameter.location === 'header' ? headers : params)[parameter.name] = stored;
    values.push({ name: parameter.name, value: stored });
  }
  const credential = securityCredential(document, operation);
  if (credential) (credential.location === 'header' ? headers : params)[credential.name] = credential.value;

  const config: RequestConfig = { url, method: operation.method };
  const media = chooseMediaType(operation);
  // A body is sent when the spec requires one or its schema has required properties; otherwise sometimes.
  const bodyNeeded = operation.requestBody?.required === true || hasRequiredProperties(media?.schema);
  if (media && (bodyNeeded || rng.child('body').bool(0.7))) {
    const body = bodyValue(media, validator, rng.child('body-value'), optionalProbability);
    if (body === undefined) {
      if (bodyNeeded) return undefined;
    } else if (Object.keys(body).length > 0) {
      config.data = body;
      headers['Content-Type'] = media.mediaType;
      for (const [name, value] of Object.entries(body)) values.push({ name, value });
    }
  }
  config.headers = headers;
  if (Object.keys(params).length > 0) config.params = params;
  return { operation, config, task: renderTaskText(document, operation, values, credential?.description, config), values };
}

function pathValue(parameter: OpenApiParameter | undefined, validator: SchemaValidator, rng: Rng): string | undefined {
  const schema = parameter?.schema;
  const type = schema?.type;
  // Plain string ids become URL-safe tokens; enums, numbers and formats come from the schema.
  if (!schema || (type === 'string' && schema.enum === undefined && schema.format === undefined && schema.pattern === undefined)) {
    return String(rng.int(10000, 99999));
  }
  const value = validValue(schema, parameter.pointer, validator, rng, parameter.name, 0);
  const text = value === undefined ? undefined : scalarText(value);
  // Only values that need no percent-encoding: the captured URL is decoded, the expected one must read the same.
  return text !== undefined && /^[A-Za-z0-9._~:-]+$/.test(text) ? text : undefined;
}

function validValue(schema: JsonObject | undefined, pointer: string, validator: SchemaValidator, rng: Rng, name: string, optionalProbability: number): JsonValue | undefined {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const value = sampleSchemaValue(schema, rng.child('attempt', attempt), { optionalProbability }, name);
    if (validator.check(pointer, value).valid) return value;
  }
  return undefined;
}

function scalarText(value: JsonValue): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function chooseMediaType(operation: OpenApiOperation): OpenApiMediaType | undefined {
  const content = operation.requestBody?.content ?? [];
  const preference = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];
  for (const type of preference) {
    const media = content.find((candidate) => candidate.mediaType === type && isObjectSchema(candidate.schema));
    if (media) return media;
  }
  return content.find((candidate) => candidate.mediaType.endsWith('+json') && isObjectSchema(candidate.schema));
}

function hasRequiredProperties(schema: JsonObject | undefined): boolean {
  if (!schema) return false;
  if (Array.isArray(schema.required) && schema.required.length > 0) return true;
  return Array.isArray(schema.allOf) && schema.allOf.some((member) => isJsonObject(member) && hasRequiredProperties(member));
}

function isObjectSchema(schema: JsonObject | undefined): boolean {
  if (!schema) return false;
  return schema.type === 'object' || isJsonObject(schema.properties) || Array.isArray(schema.allOf);
}

/**
 * A body value. Form-encoded and multipart bodies keep only top-level scalars, as strings: that is
 * what arrives after serialisation, so the expected config equals the captured one.
 */
function bodyValue(media: OpenApiMediaType, validator: SchemaValidator, rng: Rng, optionalProbability: number): JsonObject | undefined {
  const value = validValue(media.schema, media.pointer, validator, rng, 'body', optionalProbability);
  if (!isJsonObject(value)) return undefined;
  if (media.mediaType === 'application/json' || media.mediaType.endsWith('+json')) return value;
  const flat: JsonObject = {};
  for (const [name, entry] of Object.entries(value)) {
    const text = scalarText(entry);
    if (text !== undefined) flat[name] = text;
  }
  return flat;
}

type Credential = { location: 'header' | 'query'; name: string; value: string; description: string };

function securityCredential(document: OpenApiDocument, operation: OpenApiOperation): Credential | undefined {
  for (const id of operation.security) {
    const scheme = document.securitySchemes.find((candidate) => candidate.id === id);
    if (!scheme) continue;
    switch (scheme.type) {
      case 'apiKey':
        if (scheme.location === 'cookie') continue;
        return { location: scheme.location, name: scheme.parameterName, value: '<key>', description: `Authenticate with an API key in the ${scheme.location === 'header' ? 'header' : 'query parameter'} ${scheme.parameterName}.` };
      case 'http':
        if (scheme.scheme === 'basic') return { location: 'header', name: 'Authorization', value: 'Basic <token>', description: 'Authenticate with HTTP basic authentication.' };
        return { location: 'header', name: 'Authorization', value: 'Bearer <token>', description: 'Authenticate with a bearer token.' };
      case 'oauth2':
      case 'openIdConnect':
        return { location: 'header', name: 'Authorization', value: 'Bearer <token>', description: 'Authenticate with an OAuth 2 bearer token.' };
      default:
        continue;
    }
  }
  return undefined;
}

function renderTaskText(document: OpenApiDocument, operation: OpenApiOperation, values: { name: string; value: JsonValue }[], authentication: string | undefined, config: RequestConfig): string {
  const purpose = sentence(operation.summary) ?? sentence(operation.description) ?? `${operation.method.toUpperCase()} ${operation.template}`;
  const parts = [`${purpose.replace(/[.!?]+$/, '')} (${document.title}).`];
  if (values.length > 0) parts.push(`Use exactly these values: ${values.map(({ name, value }) => `${name} = ${JSON.stringify(value)}`).join('; ')}.`);
  else parts.push('Pass no further arguments.');
  if (config.headers?.['Content-Type'] && config.headers['Content-Type'] !== 'application/json') parts.push(`Send the body as ${String(config.headers['Content-Type'])}.`);
  if (authentication) parts.push(authentication);
  return parts.join(' ');
}

function sentence(text: string): string | undefined {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  const end = line.search(/[.!?](\s|$)/);
  const first = end === -1 ? line : line.slice(0, end + 1);
  return first.length > 200 ? `${first.slice(0, 197)}...` : first;
}

/**
 * Asks a model to rephrase the task naturally. The rephrasing is kept only if every value still
 * appears verbatim (so the task stays unambiguous); otherwise the template text stays.
 */
export async function rephraseTask(model: ModelSource, sample: GeneratedSample, index: number, signal?: AbortSignal): Promise<string> {
  return (await rephraseTaskWithSource(model, sample, index, signal)).text;
}

/** The rewrite, or the template when the rewrite lost a value (`source` says which, for the run summary). */
export async function rephraseTaskWithSource(model: ModelSource, sample: GeneratedSample, index: number, signal?: AbortSignal): Promise<{ text: string; source: 'model' | 'template-fallback' }> {
  const language = model.forEpisode({ task: placeholderTask(index), trial: 0, mode: 'code' });
  const result = await language.generate({
    messages: [{ role: 'user', content: `Rewrite this API task as one natural request a developer would write. Keep every value exactly as written (same spelling, quotes and numbers) and do not name the URL or HTTP method. Answer with the rewritten task only.\n\nTask: ${sample.task}` }],
    tools: [],
    toolChoice: 'none',
    settings: { temperature: 0, seed: index },
    signal: signal ?? new AbortController().signal,
  });
  const text = lastAssistantText([result.message]).trim().replace(/\s+/g, ' ');
  const keepsValues = sample.values.every(({ value }) => text.includes(typeof value === 'string' ? value : JSON.stringify(value)));
  return text !== '' && keepsValues ? { text, source: 'model' } : { text: sample.task, source: 'template-fallback' };
}

/** The phrasing call is not an episode of any task; replay and built-in sources still want one to key on. */
function placeholderTask(index: number): Task {
  return {
    schemaVersion: 1, id: `webapi/phrasing/${index}`, suite: { id: 'webapi', version: '1' }, seed: index, params: {}, prompt: [], tools: [],
    modes: ['code'], expected: null, limits: { maxTurns: 1, maxToolCalls: 1, timeLimitMs: 60_000 }, stats: {},
  };
}

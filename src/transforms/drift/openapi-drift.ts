/**
 * Drift of an OpenAPI 3 document (the parsed YAML/JSON object, `$ref`s as written). Each operation
 * is read as an endpoint: its query, header and path parameters (path-item ones merged in) and
 * the top-level properties of its request body. The drifted document inlines the parameters and
 * bodies of the operations that changed, moves renamed paths, and keeps every other part as it was,
 * so it loads with loadOpenApiObject like the original. URL evolution moves the document once: the
 * server URL's version goes up; when the version lives in the paths instead (Google Sheets'
 * `/v4/...`), every path's version goes up; with no version anywhere `/v2` is appended to the server.
 */
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import { seededStream } from '../seeded-stream.ts';
import { httpMethods } from '../../openapi/document.ts';
import type { DriftChange, DriftEndpoint, DriftParameter, EndpointChangeLog, ParameterLocation } from './drift-model.ts';
import type { DriftOperatorId, DriftOptions } from './drift-operators.ts';
import { defaultDriftProbability, driftEndpoint } from './drift-operators.ts';
import { evolveServerUrl, hasVersion, raiseVersion } from './endpoint-evolution.ts';

export type DriftedOpenApi = {
  operator: DriftOperatorId;
  seed: number;
  probability: number;
  /** The new document. */
  document: JsonObject;
  /** Server URL moves (old -> new), empty when the servers stayed. */
  servers: { from: string; to: string }[];
  /** One log per operation (key `method template`), in document order. */
  log: EndpointChangeLog[];
};

type OperationSource = {
  parameters: DriftParameter[];
  /** Parameters no operator touches (cookies), written back as they were. */
  fixed: JsonValue[];
  body: { requestBody: JsonObject; schema: JsonObject; mediaTypes: string[] } | undefined;
};

export function driftOpenApi(document: unknown, operator: DriftOperatorId, seed: number, options: DriftOptions = {}): DriftedOpenApi {
  if (!isJsonObject(document) || !isJsonObject(document.paths)) {
    throw new ConfigError('input.invalid', 'the document to drift is not an OpenAPI object with paths', { fix: 'pass the parsed OpenAPI 3 document (YAML or JSON)' });
  }
  const probability = options.probability ?? defaultDriftProbability;
  const result = structuredClone(document);
  const paths = document.paths;
  const servers = Array.isArray(result.servers) ? result.servers.filter(isJsonObject) : [];
  const serverMoves: { from: string; to: string }[] = [];
  let raisePathVersions = false;
  const moves = operator === 'endpoint' || operator === 'all';
  if (moves && seededStream(seed, 'drift', 'endpoint', 'document').bool(probability)) {
    const urls = servers.map((server) => server.url).filter((url): url is string => typeof url === 'string');
    const pathVersioned = !urls.some((url) => hasVersion(url) || url.includes('rapidapi.com')) && Object.keys(paths).some(hasVersion);
    if (pathVersioned) raisePathVersions = true;
    else {
      for (const server of servers) {
        if (typeof server.url !== 'string') continue;
        const to = evolveServerUrl(server.url);
        serverMoves.push({ from: server.url, to });
        server.url = to;
      }
    }
  }
  const newPaths: JsonObject = {};
  const log: EndpointChangeLog[] = [];
  for (const [template, item] of Object.entries(paths)) {
    if (!isJsonObject(item)) {
      newPaths[template] = item;
      continue;
    }
    const shell: JsonObject = { ...item };
    delete shell.parameters;
    for (const method of httpMethods) delete shell[method];
    const pathItemParameters = Array.isArray(item.parameters) ? item.parameters : [];
    newPaths[template] ??= {};
    Object.assign(newPaths[template] as JsonObject, shell);
    for (const method of httpMethods) {
      const operation = item[method];
      if (!isJsonObject(operation)) continue;
      const source = readOperation(result, pathItemParameters, operation);
      const preChanges: DriftChange[] = serverMoves.map((move) => ({ kind: 'server-moved', from: move.from, to: move.to }));
      let name = template;
      if (raisePathVersions && hasVersion(template)) {
        name = raiseVersion(template);
        preChanges.push({ kind: 'endpoint-renamed', from: template, to: name });
      }
      const endpoint: DriftEndpoint = { key: `${method} ${template}`, name, kind: 'http', method, parameters: source.parameters };
      const drifted = driftEndpoint(endpoint, operator, seed, { ...options, probability });
      let changes = [...preChanges, ...drifted.changes];
      let target = drifted.name;
      if (target !== template && isJsonObject(newPaths[target]) && isJsonObject((newPaths[target] as JsonObject)[method])) {
        // Another operation already lives there: this one stays where it was.
        target = template;
        changes = changes.filter((change) => change.kind !== 'endpoint-renamed');
      }
      const parameterChanged = changes.some((change) => change.kind !== 'endpoint-renamed' && change.kind !== 'server-moved');
      const written = parameterChanged ? writeOperation(operation, source, drifted.parameters) : inlinePathParameters(operation, source);
      newPaths[target] ??= { ...shell };
      (newPaths[target] as JsonObject)[method] = written;
      log.push({ key: endpoint.key, method, from: template, to: target, changes });
    }
  }
  for (const [template, item] of Object.entries(newPaths)) {
    if (isJsonObject(item) && !httpMethods.some((method) => isJsonObject(item[method]))) delete newPaths[template];
  }
  result.paths = newPaths;
  return { operator, seed, probability, document: result, servers: serverMoves, log };
}

/** Resolves a local `$ref` (one level, repeatedly); undefined when it points nowhere. */
export function resolveLocalReference(document: JsonObject, value: JsonValue | undefined): JsonValue | undefined {
  let current = value;
  for (let depth = 0; depth < 16 && isJsonObject(current) && typeof current.$ref === 'string'; depth += 1) {
    const reference = current.$ref;
    if (!reference.startsWith('#/')) return current;
    let target: JsonValue | undefined = document;
    for (const segment of reference.slice(2).split('/')) {
      const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
      target = isJsonObject(target) ? target[key] : undefined;
    }
    current = target;
  }
  return current;
}

function readOperation(document: JsonObject, pathItemParameters: JsonValue[], operation: JsonObject): OperationSource {
  const merged = new Map<string, JsonObject>();
  const fixed: JsonValue[] = [];
  const operationParameters = Array.isArray(operation.parameters) ? operation.parameters : [];
  for (const raw of [...pathItemParameters, ...operationParameters]) {
    const parameter = resolveLocalReference(document, raw);
    if (!isJsonObject(parameter) || typeof parameter.name !== 'string' || typeof parameter.in !== 'string') {
      fixed.push(raw);
      continue;
    }
    merged.set(`${parameter.in}\u0000${parameter.name}`, parameter);
  }
  const parameters: DriftParameter[] = [];
  for (const parameter of merged.values()) {
    const location = parameter.in as string;
    if (location !== 'query' && location !== 'header' && location !== 'path') {
      fixed.push(parameter);
      continue;
    }
    const { name, in: _in, required, schema, ...extra } = parameter;
    const resolvedSchema = resolveLocalReference(document, schema);
    parameters.push({
      name: name as string,
      location: location as ParameterLocation,
      required: required === true,
      // A referenced schema keeps its $ref unless it is a plain scalar we may have to rewrite.
      schema: isJsonObject(resolvedSchema) && typeof resolvedSchema.type === 'string' && resolvedSchema.type !== 'object'
        ? { ...resolvedSchema } : isJsonObject(schema) ? schema : {},
      extra,
    });
  }
  const requestBody = resolveLocalReference(document, operation.requestBody);
  let body: OperationSource['body'];
  if (isJsonObject(requestBody) && isJsonObject(requestBody.content)) {
    const mediaTypes: string[] = [];
    let bodySchema: JsonObject | undefined;
    for (const [mediaType, media] of Object.entries(requestBody.content)) {
      if (!isJsonObject(media)) continue;
      const schema = resolveLocalReference(document, media.schema);
      if (!isJsonObject(schema) || !isJsonObject(schema.properties)) continue;
      if (bodySchema === undefined) bodySchema = schema;
      if (JSON.stringify(schema) === JSON.stringify(bodySchema)) mediaTypes.push(mediaType);
    }
    if (bodySchema !== undefined) {
      const required = Array.isArray(bodySchema.required) ? bodySchema.required : [];
      for (const [name, schema] of Object.entries(bodySchema.properties as JsonObject)) {
        parameters.push({ name, location: 'body', required: required.includes(name), schema: isJsonObject(schema) ? schema : {} });
      }
      body = { requestBody, schema: bodySchema, mediaTypes };
    }
  }
  return { parameters, fixed, body };
}

function parameterObject(parameter: DriftParameter): JsonObject {
  const written: JsonObject = { ...(parameter.extra ?? {}), name: parameter.name, in: parameter.location, schema: parameter.schema };
  if (parameter.required || parameter.location === 'path') written.required = true;
  return written;
}

function inlinePathParameters(operation: JsonObject, source: OperationSource): JsonObject {
  const written: JsonObject = { ...operation };
  const parameters = [...source.parameters.filter((parameter) => parameter.location !== 'body').map(parameterObject), ...source.fixed];
  if (parameters.length > 0) written.parameters = parameters;
  else delete written.parameters;
  return written;
}

function writeOperation(operation: JsonObject, source: OperationSource, parameters: DriftParameter[]): JsonObject {
  const written = inlinePathParameters(operation, { ...source, parameters });
  if (source.body) {
    const properties: JsonObject = {};
    const required: JsonValue[] = [];
    for (const parameter of parameters.filter((candidate) => candidate.location === 'body')) {
      properties[parameter.name] = parameter.schema;
      if (parameter.required) required.push(parameter.name);
    }
    const schema: JsonObject = { ...source.body.schema, properties };
    if (required.length > 0) schema.required = required;
    else delete schema.required;
    const content: JsonObject = { ...(source.body.requestBody.content as JsonObject) };
    for (const mediaType of source.body.mediaTypes) {
      // Examples show the old field names: they would contradict the new schema.
      const { example: _example, examples: _examples, ...media } = content[mediaType] as JsonObject;
      content[mediaType] = { ...media, schema };
    }
    written.requestBody = { ...source.body.requestBody, content };
  }
  return written;
}

/**
 * Loads any OpenAPI 3 document (YAML or JSON, file or object): validated with
 * @readme/openapi-parser, `$ref`s resolved (circular schemas survive as circular objects), and
 * indexed into an OpenApiDocument. Loaded files are cached per path for the process.
 */
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, errorMessage } from '../core/errors.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';
import { isJsonObject } from '../core/json.ts';
import type {
  HttpMethod, OpenApiDocument, OpenApiMediaType, OpenApiOperation, OpenApiParameter, OpenApiPath, OpenApiRequestBody,
  ParameterLocation, SecurityScheme,
} from './document.ts';
import { httpMethods } from './document.ts';
import { compilePathTemplate } from './path-matcher.ts';
import { canonicalPointer, encodePointer } from './json-pointer.ts';
import { readTextFile } from '../core/read-text-file.ts';
import { fileProblem } from '../core/file-problem.ts';

const cache = new Map<string, Promise<OpenApiDocument>>();

/** Loads (once per process) the OpenAPI 3 document at `path`. Bad files throw a ConfigError naming the file. */
export function loadOpenApiFile(path: string): Promise<OpenApiDocument> {
  const absolute = resolve(path);
  let loading = cache.get(absolute);
  if (!loading) {
    loading = readAndLoad(absolute);
    cache.set(absolute, loading);
    loading.catch(() => cache.delete(absolute));
  }
  return loading;
}

async function readAndLoad(path: string): Promise<OpenApiDocument> {
  let text: string;
  try {
    text = await readTextFile(path);
  } catch (error) {
    // A readable file that is not text (compressed) says so itself.
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('input.unreadable', `cannot read OpenAPI file '${path}': ${fileProblem(path, error)}`, {
      fix: 'pass the path of an existing OpenAPI 3 YAML or JSON file',
    });
  }
  let parsed: unknown;
  try {
    // YAML is a superset of JSON, so one parser reads both.
    parsed = parseYaml(text, { maxAliasCount: -1 });
  } catch (error) {
    throw new ConfigError('input.invalid', `OpenAPI file '${path}' is neither valid YAML nor JSON: ${errorMessage(error)}`, {
      fix: 'fix the syntax error at the position the message names',
    });
  }
  return loadOpenApiObject(parsed, path);
}

/** Loads an already-parsed OpenAPI 3 document. `source` names it in errors (and resolves relative external `$ref`s). */
export async function loadOpenApiObject(value: unknown, source: string): Promise<OpenApiDocument> {
  if (!isJsonObject(value)) {
    throw new ConfigError('input.invalid', `OpenAPI document '${source}' is not an object`, { fix: 'the file must hold one OpenAPI 3 document' });
  }
  const version = value.openapi;
  if (typeof version !== 'string' || !version.startsWith('3.')) {
    throw new ConfigError('input.invalid', `'${source}' is not an OpenAPI 3 document (field 'openapi' is ${JSON.stringify(version ?? null)})`, {
      fix: "use an OpenAPI 3.x document (Swagger 2.0 files can be converted with swagger2openapi)",
    });
  }
  const hasExternalReferences = JSON.stringify(value).match(/"\$ref"\s*:\s*"(?!#)/) !== null;
  // Loaded on first use (~60 ms): most commands never read an OpenAPI document.
  const { bundle, compileErrors, dereference, validate } = await import('@readme/openapi-parser');
  let bundled: JsonObject;
  let dereferenced: JsonObject;
  try {
    bundled = hasExternalReferences
      ? (await bundle(source) as unknown as JsonObject)
      : structuredClone(value);
    const validation = await validate(structuredClone(bundled) as never);
    if (!validation.valid) {
      throw new ConfigError('input.invalid', `OpenAPI document '${source}' is invalid:\n${compileErrors(validation)}`, {
        fix: 'correct the document where the errors point',
      });
    }
    dereferenced = await dereference(structuredClone(bundled) as never, { dereference: { circular: true } }) as unknown as JsonObject;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('input.invalid', `cannot resolve OpenAPI document '${source}': ${errorMessage(error)}`, {
      fix: 'check that every $ref points to an existing definition',
    });
  }
  return indexDocument(dereferenced, bundled, source);
}

function indexDocument(document: JsonObject, bundled: JsonObject, source: string): OpenApiDocument {
  const info = isJsonObject(document.info) ? document.info : {};
  const securitySchemes = readSecuritySchemes(document);
  const globalSecurity = requirementNames(document.security);
  const paths: OpenApiPath[] = [];
  const pathItems = isJsonObject(document.paths) ? document.paths : {};
  for (const [template, item] of Object.entries(pathItems)) {
    if (!isJsonObject(item)) continue;
    const pathSegments = ['paths', template];
    const pathItemParameters = readParameters(item.parameters, bundled, [...pathSegments, 'parameters']);
    const operations: OpenApiOperation[] = [];
    for (const method of httpMethods) {
      const operation = item[method];
      if (!isJsonObject(operation)) continue;
      const operationSegments = [...pathSegments, method];
      const operationParameters = readParameters(operation.parameters, bundled, [...operationSegments, 'parameters']);
      const operationSecurity = operation.security === undefined ? globalSecurity : requirementNames(operation.security);
      operations.push({
        method,
        template,
        operationId: typeof operation.operationId === 'string' ? operation.operationId : undefined,
        summary: typeof operation.summary === 'string' ? operation.summary : '',
        description: typeof operation.description === 'string' ? operation.description : '',
        pathItemParameters,
        operationParameters,
        parameters: mergeParameters(pathItemParameters, operationParameters),
        requestBody: readRequestBody(operation.requestBody, bundled, [...operationSegments, 'requestBody']),
        security: operationSecurity,
        deprecated: operation.deprecated === true,
      });
    }
    const compiled = compilePathTemplate(template);
    paths.push({ template, pattern: compiled.pattern, placeholders: compiled.placeholders, pathItemParameters, operations });
  }
  return {
    source,
    openapi: String(document.openapi),
    title: typeof info.title === 'string' ? info.title : source,
    version: typeof info.version === 'string' ? info.version : '',
    serverUrls: readServerUrls(document.servers),
    paths,
    securitySchemes,
    bundled,
  };
}

function readServerUrls(servers: JsonValue | undefined): string[] {
  const urls: string[] = [];
  if (Array.isArray(servers)) {
    for (const server of servers) {
      if (!isJsonObject(server) || typeof server.url !== 'string') continue;
      const variables = isJsonObject(server.variables) ? server.variables : {};
      // Server variables take their default values: that is the URL a client uses unless told otherwise.
      urls.push(server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
        const variable = variables[name];
        return isJsonObject(variable) && variable.default !== undefined ? String(variable.default) : whole;
      }).replace(/\/+$/, ''));
    }
  }
  return urls.length > 0 ? urls : [''];
}

function readSecuritySchemes(document: JsonObject): SecurityScheme[] {
  const components = isJsonObject(document.components) ? document.components : {};
  const schemes = isJsonObject(components.securitySchemes) ? components.securitySchemes : {};
  const result: SecurityScheme[] = [];
  for (const [id, scheme] of Object.entries(schemes)) {
    if (!isJsonObject(scheme)) continue;
    switch (scheme.type) {
      case 'apiKey': {
        const location = scheme.in === 'query' || scheme.in === 'header' || scheme.in === 'cookie' ? scheme.in : 'header';
        result.push({ id, type: 'apiKey', parameterName: typeof scheme.name === 'string' ? scheme.name : 'Authorization', location });
        break;
      }
      case 'http':
        result.push({ id, type: 'http', scheme: typeof scheme.scheme === 'string' ? scheme.scheme.toLowerCase() : 'bearer' });
        break;
      case 'oauth2':
      case 'openIdConnect':
      case 'mutualTLS':
        result.push({ id, type: scheme.type });
        break;
      default:
        break;
    }
  }
  return result;
}

function requirementNames(security: JsonValue | undefined): string[] {
  if (!Array.isArray(security)) return [];
  const names = new Set<string>();
  for (const requirement of security) if (isJsonObject(requirement)) for (const name of Object.keys(requirement)) names.add(name);
  return [...names];
}

function readParameters(value: JsonValue | undefined, bundled: JsonObject, segments: string[]): OpenApiParameter[] {
  if (!Array.isArray(value)) return [];
  const parameters: OpenApiParameter[] = [];
  value.forEach((parameter, index) => {
    if (!isJsonObject(parameter) || typeof parameter.name !== 'string') return;
    const location = parameter.in;
    if (location !== 'path' && location !== 'query' && location !== 'header' && location !== 'cookie') return;
    const parameterSegments = canonicalPointer(bundled, [...segments, String(index)]);
    parameters.push({
      name: parameter.name,
      location: location satisfies ParameterLocation,
      required: parameter.required === true || location === 'path',
      description: typeof parameter.description === 'string' ? parameter.description : '',
      schema: isJsonObject(parameter.schema) ? parameter.schema : firstContentSchema(parameter.content),
      pointer: encodePointer(canonicalPointer(bundled, [...parameterSegments, 'schema'])),
    });
  });
  return parameters;
}

function firstContentSchema(content: JsonValue | undefined): JsonObject | undefined {
  if (!isJsonObject(content)) return undefined;
  for (const media of Object.values(content)) if (isJsonObject(media) && isJsonObject(media.schema)) return media.schema;
  return undefined;
}

/** Operation parameters override path-item parameters with the same name and location (OpenAPI 3 rule). */
function mergeParameters(pathItem: OpenApiParameter[], operation: OpenApiParameter[]): OpenApiParameter[] {
  const key = (parameter: OpenApiParameter) => `${parameter.location}:${parameter.name}`;
  const overridden = new Set(operation.map(key));
  return [...pathItem.filter((parameter) => !overridden.has(key(parameter))), ...operation];
}

function readRequestBody(value: JsonValue | undefined, bundled: JsonObject, segments: string[]): OpenApiRequestBody | undefined {
  if (!isJsonObject(value)) return undefined;
  const bodySegments = canonicalPointer(bundled, segments);
  const content: OpenApiMediaType[] = [];
  if (isJsonObject(value.content)) {
    for (const [mediaType, media] of Object.entries(value.content)) {
      if (!isJsonObject(media)) continue;
      content.push({
        mediaType,
        schema: isJsonObject(media.schema) ? media.schema : undefined,
        pointer: encodePointer(canonicalPointer(bundled, [...bodySegments, 'content', mediaType, 'schema'])),
      });
    }
  }
  return { required: value.required === true, content };
}

export type { HttpMethod };

/**
 * The indexed view of an OpenAPI 3 document that suites work with: servers, path templates with
 * their matching regexes, operations with merged parameters, request bodies and security schemes.
 * Schemas are the dereferenced objects (circular schemas stay circular: walk them with a depth
 * limit); `bundled` keeps the `$ref`s for ajv, which cannot compile a circular object graph.
 */
import type { JsonObject } from '../core/json.ts';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options' | 'trace';
export const httpMethods: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** Where an argument of a request goes: OpenAPI parameter locations plus the request body. */
export type ArgumentLocation = 'path' | 'query' | 'header' | 'body';

export type OpenApiParameter = {
  name: string;
  location: ParameterLocation;
  required: boolean;
  description: string;
  /** Dereferenced schema (may be circular). */
  schema: JsonObject | undefined;
  /** JSON pointer of the parameter in the bundled document, for ajv. */
  pointer: string;
};

export type OpenApiMediaType = {
  mediaType: string;
  /** Dereferenced schema (may be circular). */
  schema: JsonObject | undefined;
  pointer: string;
};

export type OpenApiRequestBody = { required: boolean; content: OpenApiMediaType[] };

export type SecurityScheme =
  | { id: string; type: 'apiKey'; parameterName: string; location: 'query' | 'header' | 'cookie' }
  | { id: string; type: 'http'; scheme: string }
  | { id: string; type: 'oauth2' }
  | { id: string; type: 'openIdConnect' }
  | { id: string; type: 'mutualTLS' };

export type OpenApiOperation = {
  method: HttpMethod;
  /** The template of the path this operation belongs to. */
  template: string;
  operationId: string | undefined;
  summary: string;
  description: string;
  /** Path-level parameters (as declared on the path item). */
  pathItemParameters: OpenApiParameter[];
  /** Operation-level parameters (as declared on the operation). */
  operationParameters: OpenApiParameter[];
  /** Effective parameters: path-level overridden by operation-level ones of the same name and location. */
  parameters: OpenApiParameter[];
  requestBody: OpenApiRequestBody | undefined;
  /** Ids of the security schemes any requirement of this operation names (global ones when it names none). */
  security: string[];
  deprecated: boolean;
};

export type OpenApiPath = {
  template: string;
  /** Full-match regex of the template: each `{name}` becomes a `[^/?&]+` capture. */
  pattern: RegExp;
  /** The placeholder names, in order. */
  placeholders: string[];
  pathItemParameters: OpenApiParameter[];
  operations: OpenApiOperation[];
};

export type OpenApiDocument = {
  /** Where it was loaded from (a file path or a label). */
  source: string;
  openapi: string;
  title: string;
  version: string;
  /** Server URLs with their variables substituted by the defaults; at least one ('' when none is declared). */
  serverUrls: string[];
  paths: OpenApiPath[];
  securitySchemes: SecurityScheme[];
  /** The document with internal `$ref`s kept (what ajv compiles). */
  bundled: JsonObject;
};

export function findOperation(path: OpenApiPath | undefined, method: string): OpenApiOperation | undefined {
  return path?.operations.find((operation) => operation.method === method.toLowerCase());
}

export function listOperations(document: OpenApiDocument): OpenApiOperation[] {
  return document.paths.flatMap((path) => path.operations);
}

export function findPath(document: OpenApiDocument, template: string): OpenApiPath | undefined {
  return document.paths.find((path) => path.template === template);
}

/**
 * Whether an argument is legal for an operation, following WAPIIBench's `validate_argument`:
 * - header `Accept` is always legal; header `Content-Type` only for put/post/patch;
 * - the credential of any security scheme the document defines: an apiKey's name in its location,
 *   the `Authorization` header for http, oauth2 and openIdConnect schemes;
 * - a path-item parameter, then an operation parameter, of that name in that location (the first
 *   parameter with the name decides within each list);
 * - a body argument: a top-level property of the operation's request-body schema (properties of
 *   `allOf`/`oneOf`/`anyOf` members count as top-level).
 * Names are compared exactly (also header names), as the reference does.
 */
import type { JsonObject } from '../core/json.ts';
import { isJsonObject } from '../core/json.ts';
import type { ArgumentLocation, OpenApiDocument, OpenApiOperation, OpenApiParameter, OpenApiPath } from './document.ts';
import { findOperation } from './document.ts';

export type ArgumentQuery = {
  location: ArgumentLocation;
  name: string;
  method: string;
  /** The endpoint's path; undefined when the URL matched no template (only credentials and fixed headers are legal then). */
  path: OpenApiPath | undefined;
};

const bodyMethods = new Set(['put', 'post', 'patch']);

export function isLegalArgument(document: OpenApiDocument, query: ArgumentQuery): boolean {
  const method = query.method.toLowerCase();
  if (query.location === 'header' && query.name === 'Accept') return true;
  if (query.location === 'header' && query.name === 'Content-Type') return bodyMethods.has(method);
  if (isSecurityCredential(document, query.location, query.name)) return true;
  if (!query.path) return false;
  const operation = findOperation(query.path, method);
  if (query.location === 'body') return operation !== undefined && requestBodyPropertyNames(operation).has(query.name);
  if (declares(query.path.pathItemParameters, query)) return true;
  return operation !== undefined && declares(operation.operationParameters, query);
}

function declares(parameters: readonly OpenApiParameter[], query: ArgumentQuery): boolean {
  const parameter = parameters.find((candidate) => candidate.name === query.name);
  return parameter !== undefined && parameter.location === query.location;
}

export function isSecurityCredential(document: OpenApiDocument, location: ArgumentLocation, name: string): boolean {
  return document.securitySchemes.some((scheme) => {
    switch (scheme.type) {
      case 'apiKey':
        return scheme.location === location && scheme.parameterName === name;
      case 'http':
      case 'oauth2':
      case 'openIdConnect':
        return location === 'header' && name === 'Authorization';
      case 'mutualTLS':
        return false;
    }
  });
}

/** Top-level property names of every media type of the operation's request body. */
export function requestBodyPropertyNames(operation: OpenApiOperation): Set<string> {
  const names = new Set<string>();
  for (const media of operation.requestBody?.content ?? []) {
    if (media.schema) collectTopLevelProperties(media.schema, names, 0);
  }
  return names;
}

function collectTopLevelProperties(schema: JsonObject, names: Set<string>, depth: number): void {
  if (depth > 8) return;
  if (isJsonObject(schema.properties)) for (const name of Object.keys(schema.properties)) names.add(name);
  for (const combinator of ['allOf', 'oneOf', 'anyOf'] as const) {
    const members = schema[combinator];
    if (Array.isArray(members)) for (const member of members) if (isJsonObject(member)) collectTopLevelProperties(member, names, depth + 1);
  }
}

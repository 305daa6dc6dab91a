/**
 * Compares a captured request config with the expected one, as WAPIIBench's `compare` does:
 * - URL: both URLs are mapped to spec paths; correct if the expected URL's best path is among the
 *   captured URL's candidates, illegal if the captured URL matches no path, else wrong. A URL that
 *   does not start with a server URL of the spec (a bare `/tasks/1`) matches no path: unlike the
 *   reference, which then matches the path as written (README "Deliberate differences");
 * - method: correct if equal, illegal if no candidate path of the captured URL defines it, else wrong;
 * - path parameters are read from each URL with its best candidate path;
 * - every expected argument: correct (strict, type-sensitive equality), incorrect value, or missing;
 * - every other captured argument: unnecessary when legal for the *expected* endpoint, else illegal.
 */
import { ToolForgeError } from '../../core/errors.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject, jsonEqual } from '../../core/json.ts';
import type { OpenApiDocument } from '../../openapi/document.ts';
import { findOperation } from '../../openapi/document.ts';
import { isLegalArgument } from '../../openapi/argument-legality.ts';
import type { OpenApiPath } from '../../openapi/document.ts';
import { extractPathParameters, matchUrlToPaths } from '../../openapi/path-matcher.ts';
import type { ConfigField, RequestConfig } from './request-config.ts';
import { configFields, fieldLocation, specialHeaders } from './request-config.ts';

export type EndpointVerdict = 'correct' | 'wrong' | 'illegal';
export type ArgumentVerdict = 'correct' | 'incorrect-value' | 'missing' | 'unnecessary' | 'illegal';

export type ArgumentJudgement = {
  field: ConfigField;
  name: string;
  expected?: JsonValue;
  actual?: JsonValue;
  verdict: ArgumentVerdict;
  /** False for the Accept and Content-Type headers, which are never counted. */
  counted: boolean;
};

export type RequestComparison = {
  url: { expected: string; actual: string; verdict: EndpointVerdict; expectedTemplate: string; actualTemplate: string | null };
  method: { expected: string; actual: string; verdict: EndpointVerdict };
  endpoint: EndpointVerdict;
  arguments: ArgumentJudgement[];
};

/** A config with `path_params` read from its URL by its best spec path (absent when none matched or it has none). */
export type ArgumentsByField = Partial<Record<ConfigField, JsonObject>>;

/**
 * The spec paths a request URL can mean, best first. The URL must start with one of the spec's server
 * URLs (any URL when the spec declares none): a path without its server is not the URL the spec defines.
 */
export function requestUrlPaths(document: OpenApiDocument, url: string): OpenApiPath[] {
  const servers = document.serverUrls.filter((server) => server !== '');
  if (servers.length > 0 && !servers.some((server) => url.startsWith(server))) return [];
  return matchUrlToPaths(document, url);
}

export function argumentsOf(document: OpenApiDocument, config: RequestConfig): { fields: ArgumentsByField; templates: string[] } {
  const paths = requestUrlPaths(document, config.url);
  const fields: ArgumentsByField = {};
  if (config.headers) fields.headers = config.headers;
  if (config.params) fields.params = config.params;
  if (paths.length > 0) {
    const pathParameters = extractPathParameters(document, paths[0], config.url) ?? {};
    if (Object.keys(pathParameters).length > 0) fields.path_params = pathParameters;
  }
  if (config.data) fields.data = config.data;
  return { fields, templates: paths.map((path) => path.template) };
}

export function compareRequest(document: OpenApiDocument, expected: RequestConfig, actual: RequestConfig): RequestComparison {
  const expectedPaths = requestUrlPaths(document, expected.url);
  if (expectedPaths.length === 0) {
    throw new ToolForgeError('suite.invalid-task', `expected URL '${expected.url}' matches no path of '${document.source}'`, {
      fix: 'the task and its spec disagree: regenerate the task or pass the right spec (--set spec=...)',
    });
  }
  const expectedPath = expectedPaths[0];
  const actualPaths = requestUrlPaths(document, actual.url);
  const expectedMethod = expected.method.toLowerCase();
  const actualMethod = actual.method.toLowerCase();

  let urlVerdict: EndpointVerdict;
  if (actualPaths.includes(expectedPath)) urlVerdict = 'correct';
  else if (actualPaths.length === 0) urlVerdict = 'illegal';
  else urlVerdict = 'wrong';

  let methodVerdict: EndpointVerdict;
  if (expectedMethod === actualMethod) methodVerdict = 'correct';
  else if (actualPaths.every((path) => findOperation(path, actualMethod) === undefined)) methodVerdict = 'illegal';
  else methodVerdict = 'wrong';

  let endpoint: EndpointVerdict;
  if (urlVerdict === 'correct' && methodVerdict === 'correct') endpoint = 'correct';
  else if (urlVerdict === 'illegal' || methodVerdict === 'illegal') endpoint = 'illegal';
  else endpoint = 'wrong';

  const expectedFields = argumentsOf(document, expected).fields;
  const actualFields = argumentsOf(document, actual).fields;
  const judgements: ArgumentJudgement[] = [];
  for (const field of configFields) {
    const expectedArguments = expectedFields[field] ?? {};
    const actualArguments = actualFields[field];
    for (const [name, expectedValue] of Object.entries(expectedArguments)) {
      const counted = !(field === 'headers' && specialHeaders.includes(name));
      if (actualArguments && Object.hasOwn(actualArguments, name)) {
        const actualValue = actualArguments[name];
        judgements.push({ field, name, expected: expectedValue, actual: actualValue, verdict: jsonEqual(actualValue, expectedValue) ? 'correct' : 'incorrect-value', counted });
      } else {
        judgements.push({ field, name, expected: expectedValue, verdict: 'missing', counted });
      }
    }
  }
  for (const field of configFields) {
    const actualArguments = actualFields[field];
    if (!isJsonObject(actualArguments)) continue;
    const expectedArguments = expectedFields[field] ?? {};
    for (const [name, actualValue] of Object.entries(actualArguments)) {
      if (Object.hasOwn(expectedArguments, name)) continue;
      const legal = isLegalArgument(document, { location: fieldLocation(field), name, method: expectedMethod, path: expectedPath });
      judgements.push({ field, name, actual: actualValue, verdict: legal ? 'unnecessary' : 'illegal', counted: !(field === 'headers' && specialHeaders.includes(name)) });
    }
  }
  return {
    url: { expected: expected.url, actual: actual.url, verdict: urlVerdict, expectedTemplate: expectedPath.template, actualTemplate: actualPaths[0]?.template ?? null },
    method: { expected: expectedMethod, actual: actualMethod, verdict: methodVerdict },
    endpoint,
    arguments: judgements,
  };
}

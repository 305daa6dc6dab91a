/**
 * URL / endpoint evolution (DynamicToolBench operator 1). With the configured probability an
 * endpoint moves to its next version:
 * - OpenAPI paths: `/get` -> `/fetch` and `/post` -> `/submit` (the reference's substring rewrite).
 *   The document's server URL moves once per document (evolveServerUrl, applied by openapi-drift.ts):
 *   its version goes up (`/v1` -> `/v2`, `/1.0` -> `/2.0`, `rapidapi.com` -> `api-service.io`), or
 *   `/v2` is appended when it names none.
 * - Tool names (the endpoint a function-calling model names): the action word `get` -> `fetch` and
 *   `post` -> `submit` (snake, kebab or camel case); a name with neither gets a `_v2` suffix. Names
 *   stay within 64 characters (the last 64 are kept, as StableToolBench truncates) and never land on
 *   another tool's name.
 */
import type { DriftChange, DriftOperator } from './drift-model.ts';
import { copyEndpoint } from './drift-model.ts';

export const maximumToolNameLength = 64;

export const endpointEvolution: DriftOperator = (endpoint, context) => {
  const result = copyEndpoint(endpoint);
  if (!context.rng.bool(context.probability)) return { ...result, changes: [] };
  const changes: DriftChange[] = [];
  if (result.kind === 'tool') {
    const to = evolveToolName(result.name);
    if (to !== result.name && !context.takenNames.has(to)) {
      changes.push({ kind: 'endpoint-renamed', from: result.name, to });
      result.name = to;
    }
    return { ...result, changes };
  }
  // The server URL is the document's: openapi-drift.ts moves it once for all operations.
  const path = result.name.replaceAll('/get', '/fetch').replaceAll('/post', '/submit');
  if (path !== result.name) {
    changes.push({ kind: 'endpoint-renamed', from: result.name, to: path });
    result.name = path;
  }
  return { ...result, changes };
};

export function evolveToolName(name: string): string {
  const boundary = '(?=$|[_\\-./A-Z0-9])';
  let evolved = name
    .replace(new RegExp(`(^|[_\\-./])get${boundary}`, 'g'), '$1fetch')
    .replace(new RegExp(`(^|[_\\-./])post${boundary}`, 'g'), '$1submit')
    .replace(new RegExp(`(^|[a-z0-9])Get${boundary}`, 'g'), '$1Fetch')
    .replace(new RegExp(`(^|[a-z0-9])Post${boundary}`, 'g'), '$1Submit');
  if (evolved === name) evolved = `${name}_v2`;
  return evolved.length > maximumToolNameLength ? evolved.slice(-maximumToolNameLength) : evolved;
}

/** The URL with its last version segment raised (`/v3` -> `/v4`, `/1.0` -> `/2.0`); unchanged when it has none. */
export function raiseVersion(url: string): string {
  const version = /\/v(\d+)(?=\/|$)|\/(\d+)\.(\d+)(?=\/|$)/g;
  const last = [...url.matchAll(version)].at(-1);
  if (last === undefined || last.index === undefined) return url;
  const replacement = last[1] !== undefined ? `/v${Number(last[1]) + 1}` : `/${Number(last[2]) + 1}.0`;
  return url.slice(0, last.index) + replacement + url.slice(last.index + last[0].length);
}

export function hasVersion(url: string): boolean {
  return raiseVersion(url) !== url;
}

/** A RapidAPI host moves domain; otherwise the version goes up, or `/v2` is appended when there is none. */
export function evolveServerUrl(url: string): string {
  if (url.includes('rapidapi.com')) return url.replaceAll('rapidapi.com', 'api-service.io');
  return hasVersion(url) ? raiseVersion(url) : `${url.replace(/\/$/, '')}/v2`;
}

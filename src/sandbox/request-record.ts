/**
 * Turns a request as the in-sandbox axios/fetch shims send it (after axios's own request transformation) into
 * the RecordedRequest that WAPIIBench's mock logs (seeds-reference 2.4): URL decoded with its query moved into
 * `params` as strings, and the body decoded the way the reference decodes it.
 *
 * This runs in a sandbox worker on program-controlled text, and the worker serves the next program: every object
 * built here has a null prototype and form keys naming `__proto__`, `constructor` or `prototype` are refused, so
 * no body can reach a shared prototype (the reference's own decoder follows `__proto__`).
 */
import type { JsonValue } from '../core/json.ts';
import type { BodyType, RecordedRequest } from './spec.ts';

/** The body as it left the client: nothing, a string, FormData entries, or another JSON value. */
export type WireBody =
  | { kind: 'none' }
  | { kind: 'string'; text: string }
  | { kind: 'form-data'; entries: [string, string][] }
  | { kind: 'value'; value: JsonValue };

export type WireRequest = {
  client: 'axios' | 'fetch';
  method: string;
  url: string;
  headers: Record<string, string>;
  params: Record<string, JsonValue>;
  body: WireBody;
};

export function recordRequest(wire: WireRequest): RecordedRequest {
  const { url, params } = splitQuery(wire.url, wire.params);
  return {
    client: wire.client,
    method: wire.method.toLowerCase(),
    url,
    headers: wire.headers,
    params,
    ...decodeBody(wire.body),
  };
}

/** decodeURIComponent the whole URL (as the reference does), then move `?a=b&c` into params. */
function splitQuery(rawUrl: string, givenParams: Record<string, JsonValue>): { url: string; params: Record<string, JsonValue> } {
  let url = rawUrl;
  try {
    url = decodeURIComponent(rawUrl);
  } catch {
    // A malformed escape: keep the URL as written rather than lose the request.
  }
  const params: Record<string, JsonValue> = Object.assign(Object.create(null) as Record<string, JsonValue>, givenParams);
  const queryIndex = url.indexOf('?');
  if (queryIndex === -1) return { url, params };
  for (const pair of url.slice(queryIndex + 1).split('&')) {
    const valueIndex = pair.indexOf('=');
    if (valueIndex >= 0) params[pair.slice(0, valueIndex)] = pair.slice(valueIndex + 1);
    else params[pair] = true;
  }
  return { url: url.slice(0, queryIndex), params };
}

type DecodedBody = { data?: JsonValue; bodyType: BodyType; dataParseError?: string };

function decodeBody(body: WireBody): DecodedBody {
  switch (body.kind) {
    case 'none':
      return { bodyType: 'none' };
    case 'value':
      // null/false/0 count as an empty body, as the reference's `!data` test does.
      if (!body.value) return { data: {}, bodyType: 'json' };
      return { data: body.value, bodyType: 'text' };
    case 'form-data': {
      const data: Record<string, JsonValue> = Object.create(null) as Record<string, JsonValue>;
      for (const [key, value] of body.entries) data[key] = value;
      return { data, bodyType: 'multipart' };
    }
    case 'string':
      return decodeStringBody(body.text);
  }
}

function decodeStringBody(text: string): DecodedBody {
  if (text === '' || text === 'null') return { data: {}, bodyType: 'json' };
  if (text.startsWith('{')) {
    try {
      return { data: JSON.parse(text) as JsonValue, bodyType: 'json' };
    } catch (error) {
      return { data: text, bodyType: 'text', dataParseError: `body starts with '{' but is not JSON: ${(error as Error).message}` };
    }
  }
  try {
    return { data: parseFormBody(text), bodyType: 'form' };
  } catch (error) {
    return { data: text, bodyType: 'text', dataParseError: `body is not form-urlencoded: ${(error as Error).message}` };
  }
}

/**
 * Form-urlencoded -> object the reference's way: decode the whole body first ('+' is a space), split on '&';
 * `k[]=v` appends to an array, `a[b][c]=v` nests (a numeric next key makes an array), values stay strings.
 */
export function parseFormBody(text: string): Record<string, JsonValue> {
  const data: Record<string, JsonValue> = Object.create(null) as Record<string, JsonValue>;
  const decoded = decodeURIComponent(text.replaceAll('+', ' '));
  for (const pair of decoded.split('&')) {
    const valueIndex = pair.indexOf('=');
    // Without '=' the reference's slice(0, -1) drops the last character of the key and keeps the pair as value.
    let key = pair.slice(0, valueIndex);
    const value = pair.slice(valueIndex + 1);
    if (key.endsWith('[]')) {
      key = key.slice(0, -2);
      refuseForbiddenKey(key);
      const existing = data[key];
      if (Array.isArray(existing)) existing.push(value);
      else data[key] = [value];
    } else if (key.endsWith(']') && /[^[\]]/.test(key)) {
      const path = [...key.matchAll(/([^[\]]+)/g)].map((match) => match[1]);
      for (const segment of path) refuseForbiddenKey(segment);
      assignNested(data, path, value);
    } else {
      refuseForbiddenKey(key);
      data[key] = value;
    }
  }
  return data;
}

/** Keys that reach a prototype when followed as a path. */
const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

function refuseForbiddenKey(key: string): void {
  if (forbiddenKeys.has(key)) throw new Error(`the key '${key}' is not allowed in a form body`);
}

function assignNested(root: Record<string, JsonValue>, path: string[], value: string): void {
  let target: Record<string, JsonValue> | JsonValue[] = root;
  for (let index = 0; index < path.length - 1; index += 1) {
    const key = path[index];
    const nextKey = path[index + 1];
    const container = target as Record<string, JsonValue>;
    if (!container[key] || typeof container[key] !== 'object') {
      container[key] = Number.isNaN(Number.parseInt(nextKey, 10)) ? Object.create(null) as Record<string, JsonValue> : [];
    }
    target = container[key] as Record<string, JsonValue>;
  }
  (target as Record<string, JsonValue>)[path[path.length - 1]] = value;
}

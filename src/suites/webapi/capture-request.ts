/**
 * From a request the sandbox recorded to the config WAPIIBench compares. The sandbox already logs
 * what the reference mock logs (URL decoded with the query moved into `params`, string bodies
 * decoded: JSON when they start with `{`, else form-urlencoded with `k[]` arrays and `a[b]` nesting,
 * FormData as strings). What is left here is axios's own request transform for a plain-object body
 * whose Content-Type the program set to multipart/form-data (one form field per entry, string values)
 * or application/x-www-form-urlencoded (encoded, then read back as the mock reads a form), and the
 * mock's crash on an undecodable body (a runtime error). A body that is not an object carries no
 * arguments. Header names are kept as written: the comparison is exact, as the reference's is.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { RecordedRequest } from '../../sandbox/spec.ts';
import type { RequestConfig } from './request-config.ts';

export type { RecordedRequest };

export type CaptureResult = { ok: true; config: RequestConfig } | { ok: false; error: string };

export function captureRequestConfig(request: RecordedRequest): CaptureResult {
  if (request.dataParseError !== undefined) return { ok: false, error: `the request body cannot be decoded: ${request.dataParseError}` };
  const config: RequestConfig = { url: request.url, method: request.method.toLowerCase(), headers: { ...request.headers } };
  if (Object.keys(request.params).length > 0) config.params = { ...request.params };
  if (request.bodyType === 'none' || request.data === undefined) return { ok: true, config };
  const data = request.data;
  if (!isJsonObject(data)) return { ok: true, config };
  const type = contentType(request.headers);
  if (type.includes('multipart/form-data') && request.bodyType === 'json') {
    config.data = lastEntryWins(formEntries(data));
  } else if (type.includes('application/x-www-form-urlencoded') && request.bodyType === 'json') {
    const parsed = parseForm(urlEncode(formEntries(data)));
    if (!parsed.ok) return parsed;
    config.data = parsed.data;
  } else {
    config.data = data;
  }
  return { ok: true, config };
}

function contentType(headers: Record<string, string>): string {
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === 'content-type') return value.toLowerCase();
  return '';
}

type FormResult = { ok: true; data: JsonObject } | { ok: false; error: string };

/** The mock's reading of a form-encoded body. */
function parseForm(text: string): FormResult {
  let decoded: string;
  try {
    decoded = decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return { ok: false, error: 'form-encoded request body is not validly percent-encoded' };
  }
  const data: JsonObject = {};
  for (const pair of decoded.split('&')) {
    const valueIndex = pair.indexOf('=');
    let key = pair.slice(0, valueIndex);
    const value = pair.slice(valueIndex + 1);
    if (key.endsWith('[]')) {
      key = key.slice(0, -2);
      const existing = data[key];
      if (Array.isArray(existing)) existing.push(value);
      else data[key] = [value];
    } else if (key.endsWith(']')) {
      const parts = [...key.matchAll(/([^[\]]+)/g)].map((match) => match[1]);
      let target: JsonObject | JsonValue[] = data;
      for (let index = 0; index < parts.length - 1; index += 1) {
        const part = parts[index];
        const container = (target as Record<string, JsonValue>)[part];
        if (!container || typeof container !== 'object') (target as Record<string, JsonValue>)[part] = Number.isNaN(Number.parseInt(parts[index + 1], 10)) ? {} : [];
        target = (target as Record<string, JsonValue>)[part] as JsonObject | JsonValue[];
      }
      (target as Record<string, JsonValue>)[parts[parts.length - 1]] = value;
    } else {
      data[key] = value;
    }
  }
  return { ok: true, data };
}

/** axios's object -> form fields: nested objects as `a[b]`, arrays of scalars as `a[]`, values as strings, null as ''. */
function formEntries(value: JsonObject): [string, string][] {
  const entries: [string, string][] = [];
  const visit = (item: JsonValue, key: string) => {
    if (Array.isArray(item)) {
      const flat = item.every((element) => element === null || typeof element !== 'object');
      item.forEach((element, index) => visit(element, flat ? `${key}[]` : `${key}[${index}]`));
    } else if (isJsonObject(item)) {
      for (const [name, child] of Object.entries(item)) visit(child, `${key}[${name}]`);
    } else {
      entries.push([key, item === null ? '' : String(item)]);
    }
  };
  for (const [name, item] of Object.entries(value)) visit(item, name);
  return entries;
}

function lastEntryWins(entries: [string, string][]): JsonObject {
  const data: JsonObject = {};
  for (const [key, value] of entries) data[key] = value;
  return data;
}

function urlEncode(entries: [string, string][]): string {
  return entries.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value).replace(/%20/g, '+')}`).join('&');
}

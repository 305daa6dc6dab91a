/**
 * Applies the documented caps (spec.ts `traceCaps`, core `textCaps`) to what a program leaves in its result,
 * inside the worker, so a huge string never crosses to the main thread or into the store.
 * Callers check nesting (`maximumNestingDepth`) first: the walk below recurses at most that deep.
 */
import { capText, textCaps } from '../core/cap-text.ts';
import type { JsonValue } from '../core/json.ts';
import type { ProgramError, RecordedRequest } from './spec.ts';

type Capped<T> = { value: T; cutCharacters: number };

/** Every string in a JSON value (object keys included) capped at `textCaps.field`. */
export function capJsonStrings(value: JsonValue): Capped<JsonValue> {
  let cutCharacters = 0;
  const capString = (text: string): string => {
    const capped = capText(text, textCaps.field);
    cutCharacters += text.length - capped.length;
    return capped;
  };
  const visit = (item: JsonValue): JsonValue => {
    if (typeof item === 'string') return capString(item);
    if (item === null || typeof item !== 'object') return item;
    if (Array.isArray(item)) return item.map(visit);
    const result = Object.create(null) as Record<string, JsonValue>;
    for (const [key, member] of Object.entries(item)) result[capString(key)] = visit(member);
    return result;
  };
  const capped = visit(value);
  return { value: capped, cutCharacters };
}

export function capRequest(request: RecordedRequest): RecordedRequest {
  const cut: NonNullable<RecordedRequest['cutCharacters']> = {};
  const url = capText(request.url, textCaps.field);
  if (url.length < request.url.length) cut.url = request.url.length - url.length;
  const headers = capJsonStrings(request.headers);
  if (headers.cutCharacters > 0) cut.headers = headers.cutCharacters;
  const params = capJsonStrings(request.params);
  if (params.cutCharacters > 0) cut.params = params.cutCharacters;
  const capped: RecordedRequest = {
    ...request,
    url,
    headers: headers.value as Record<string, string>,
    params: params.value as Record<string, JsonValue>,
  };
  if (request.data !== undefined) {
    const data = capJsonStrings(request.data);
    if (data.cutCharacters > 0) cut.data = data.cutCharacters;
    capped.data = data.value;
  }
  if (request.dataParseError !== undefined) capped.dataParseError = capText(request.dataParseError, textCaps.message);
  if (Object.keys(cut).length > 0) capped.cutCharacters = cut;
  return capped;
}

export function capProgramError(error: ProgramError): ProgramError {
  const capped: ProgramError = { name: capText(error.name, textCaps.message), message: capText(error.message, textCaps.message) };
  if (error.stack !== undefined) capped.stack = capText(error.stack, textCaps.message);
  return capped;
}

/** Characters a request takes in the trace budget (`traceCaps.requestCharacters`). */
export function requestCharacters(request: RecordedRequest): number {
  return JSON.stringify(request).length;
}

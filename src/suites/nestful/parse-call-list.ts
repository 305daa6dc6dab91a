/**
 * Finds the call list in a model's raw sequence-mode output. Real outputs wrap it in code fences with a
 * language tag, `<tool_call>` / `<|tool_call|>` tags, leading prose, `{"tool_calls": [...]}` wrappers,
 * or write Python-ish single quotes; all of those are accepted (the official per-model parsers miss
 * some, e.g. ```json fences). Anything without a list of `{name, ...}` objects is unparsable: a scored
 * failure, never a thrown error.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import { parseLenientJson, parseLenientJsonPrefix } from './lenient-json.ts';

export type ParsedCallList =
  | { ok: true; calls: JsonObject[]; /** The text mentions `label` (the official scorer grounds only then). */ mentionsLabel: boolean }
  | { ok: false; error: string };

const wrapperKeys = ['tool_calls', 'calls', 'function_calls', 'functions', 'actions', 'output'];

/** Reduces a parsed value to a list of call objects, unwrapping the usual wrappers. */
function asCallList(value: JsonValue): JsonObject[] | undefined {
  if (Array.isArray(value)) {
    if (value.length === 1 && Array.isArray(value[0])) return asCallList(value[0]);
    const calls: JsonObject[] = [];
    for (const item of value) {
      const call = asCall(item);
      if (!call) return undefined;
      calls.push(call);
    }
    return calls;
  }
  if (isJsonObject(value)) {
    for (const key of wrapperKeys) {
      if (key in value && (Array.isArray(value[key]) || isJsonObject(value[key]))) {
        const inner = asCallList(value[key]);
        if (inner) return inner;
      }
    }
    const call = asCall(value);
    return call ? [call] : undefined;
  }
  return undefined;
}

/** A call object, unwrapping OpenAI-style `{"type": "function", "function": {...}}`. */
function asCall(value: JsonValue): JsonObject | undefined {
  if (!isJsonObject(value)) return undefined;
  if (typeof value.name === 'string' || typeof value.name === 'number') {
    if (typeof value.arguments === 'string') {
      const parsed = parseLenientJson(value.arguments);
      if (parsed.ok && isJsonObject(parsed.value)) return { ...value, arguments: parsed.value };
    }
    return value;
  }
  if (isJsonObject(value.function)) return asCall(value.function);
  return undefined;
}

function stripTags(text: string): string {
  return text
    .replace(/<\|[^|>]*\|>/g, '')
    .replace(/<\/?(tool_call|function_call|tool_calls|functioncall)>/gi, '\n')
    .replace(/^\s*ASSISTANT:?/i, '');
}

/** At most this many list/object starts are tried, so garbage output cannot make parsing quadratic. */
const maximumStarts = 200;

/**
 * Candidate texts, most specific first: fenced blocks, the whole text, then each `[` start; a bare `{`
 * start only when the text has no `[` at all (a truncated list must stay unparsable, not become its
 * first call).
 */
function* candidates(text: string): Generator<string | { start: number; text: string }> {
  for (const fence of text.matchAll(/```[A-Za-z0-9_+-]*[ \t]*\r?\n?([\s\S]*?)```/g)) yield fence[1].trim();
  yield text.trim();
  const opener = text.includes('[') ? '[' : '{';
  let tried = 0;
  for (let index = text.indexOf(opener); index >= 0 && tried < maximumStarts; index = text.indexOf(opener, index + 1)) {
    tried += 1;
    yield { start: index, text };
  }
}

export function parseCallList(raw: string): ParsedCallList {
  const mentionsLabel = raw.includes('label');
  const text = stripTags(raw);
  // Several `<tool_call>{...}</tool_call>` blocks: one call each.
  const tagged = [...raw.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)];
  if (tagged.length > 1) {
    const calls: JsonObject[] = [];
    for (const block of tagged) {
      const parsed = parseLenientJson(block[1].trim());
      const list = parsed.ok ? asCallList(parsed.value) : undefined;
      if (list) calls.push(...list);
    }
    if (calls.length > 0) return { ok: true, calls, mentionsLabel };
  }
  let firstError = 'no JSON list of calls found';
  let seen = 0;
  for (const candidate of candidates(text)) {
    if (typeof candidate === 'string') {
      if (candidate === '') continue;
      const parsed = parseLenientJson(candidate);
      if (parsed.ok) {
        const calls = asCallList(parsed.value);
        if (calls) return { ok: true, calls, mentionsLabel };
        if (seen === 0) firstError = 'the output is JSON but not a list of {"name", "arguments"} calls';
      } else if (seen === 0) {
        firstError = `not JSON: ${parsed.error}`;
      }
      seen += 1;
      continue;
    }
    const prefix = parseLenientJsonPrefix(candidate.text, candidate.start);
    if (!prefix) continue;
    const calls = asCallList(prefix.value);
    if (calls) return { ok: true, calls, mentionsLabel };
  }
  return { ok: false, error: firstError };
}

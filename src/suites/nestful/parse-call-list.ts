/**
 * Finds the call list in a model's raw sequence-mode output. Real outputs wrap it in code fences with a
 * language tag, `<tool_call>` / `<|tool_call|>` tags, leading prose, `{"tool_calls": [...]}` wrappers,
 * or write Python-ish single quotes; all of those are accepted (the official per-model parsers miss
 * some, e.g. ```json fences). As the official LLaMa-3.1 parser does (it adds a missing `[` or `]`), calls
 * written without the outer brackets are all read, and a list cut at a call boundary keeps its complete
 * calls. Anything without a list of `{name, ...}` objects is unparsable: a scored failure, never a
 * thrown error.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import { parseLenientJson, parseLenientSequence } from './lenient-json.ts';

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
 * Offsets of the `[` and `{` that open a top-level value: brackets inside another value (an argument
 * whose value is a list of objects, say) are never candidates, even when the outer list is cut short.
 * Quotes count only inside brackets, so apostrophes in surrounding prose do not hide the list.
 */
function topLevelStarts(text: string): number[] {
  const starts: number[] = [];
  let depth = 0;
  let quote: string | undefined;
  for (let index = 0; index < text.length && starts.length < maximumStarts; index += 1) {
    const character = text[index];
    if (quote !== undefined) {
      if (character === '\\') index += 1;
      else if (character === quote) quote = undefined;
      continue;
    }
    if (depth > 0 && (character === '"' || character === "'")) quote = character;
    else if (character === '[' || character === '{') {
      if (depth === 0) starts.push(index);
      depth += 1;
    } else if ((character === ']' || character === '}') && depth > 0) depth -= 1;
  }
  return starts;
}

/**
 * The calls of a list read from `start`, or of objects written without the outer brackets (the official
 * parser wraps such output in `[ ]`). A list cut at a call boundary keeps its complete calls (the
 * official parser closes it with `]`); a call cut in the middle leaves the output unparsable, as there.
 */
function callsFrom(text: string, start: number): JsonObject[] | undefined {
  const sequence = parseLenientSequence(text, start);
  if (!sequence) return undefined;
  if (text[start] === '[') return sequence.ending === 'stopped' ? undefined : asCallList(sequence.values);
  if (sequence.values.length === 1) return asCallList(sequence.values[0]);
  const calls: JsonObject[] = [];
  for (const value of sequence.values) {
    const call = asCall(value);
    if (!call) break;
    calls.push(call);
  }
  return calls.length > 0 ? calls : undefined;
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
  const whole = text.trim();
  const fences = [...text.matchAll(/```[A-Za-z0-9_+-]*[ \t]*\r?\n?([\s\S]*?)```/g)].map((fence) => fence[1].trim());
  let seen = 0;
  for (const candidate of [...fences, whole]) {
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
  }
  for (const start of topLevelStarts(text)) {
    const calls = callsFrom(text, start);
    if (calls) return { ok: true, calls, mentionsLabel };
  }
  return { ok: false, error: firstError };
}

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from '../../../src/core/json.ts';
import { isFloatLiteral, parseLenientJson, parseWithLenientParser } from '../../../src/suites/nestful/lenient-json.ts';
import { pythonJsonDumps } from '../../../src/suites/nestful/python-format.ts';

/** What every reader of the marks sees of each number: a float when marked or not an integer. */
function floatView(value: JsonValue, isFloat: boolean): unknown {
  if (typeof value === 'number') return { number: value, float: isFloat || !Number.isInteger(value) };
  if (Array.isArray(value)) return value.map((item, index) => floatView(item, isFloatLiteral(value, index)));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, floatView(item, isFloatLiteral(value, key))]));
  }
  return value;
}

function assertSameAsLenientParser(text: string): void {
  const native = parseLenientJson(text);
  const lenient = parseWithLenientParser(text);
  assert.equal(native.ok, lenient.ok, text);
  if (!native.ok || !lenient.ok) return;
  assert.deepEqual(native.value, lenient.value, text);
  assert.equal(native.isFloat, lenient.isFloat, text);
  assert.deepEqual(floatView(native.value, native.isFloat), floatView(lenient.value, lenient.isFloat), text);
  assert.equal(pythonJsonDumps(native.value, native.isFloat), pythonJsonDumps(lenient.value, lenient.isFloat), text);
}

describe('lenient JSON: the native path gives what the lenient parser gives', () => {
  test('data lines, call lists and answers', () => {
    const texts = [
      '{"sample_id": "s-1", "input": "A square with side 12.8. Then 29 more.", "output": [{"name": "divide", "label": "$var_1", "arguments": {"arg_0": 12.8, "arg_1": 29}}], "gold_answer": 396.331}',
      '[{"name": "add", "arguments": {"arg_0": 130.0, "arg_1": 2}}, {"name": "f", "arguments": {"x": [1.0, 2, 3.5e2, -0.0]}}]',
      '{"a": 1e3, "b": 2E-2, "c": "version 2.0", "d": [true, false, null]}',
      '396.331', '130.0', '12', '-0', '1e5', '"12.0"', '[]', '{}', '"caf\\u00e9 \\ud83d\\ude00 \\n"', ' [1, 2] ',
      '{"__proto__": {"polluted": 1}, "x": 1}', '{"__proto__": 1, "y": 2.0}',
      `[${'9'.repeat(320)}]`, '{"k": 1, "k": 2.0}', '{"12": 1, "b": 2, "3": 4.0}',
    ];
    for (const text of texts) assertSameAsLenientParser(text);
  });

  test('text only the lenient parser reads still parses, with its marks', () => {
    const result = parseLenientJson("[{'name': 'add', arguments: {arg_0: 3.0, arg_1: True,},},]");
    assert.ok(result.ok);
    const [call] = result.value as { arguments: { arg_0: number } }[];
    assert.equal(call.arguments.arg_0, 3);
    assert.equal(isFloatLiteral(call.arguments, 'arg_0'), true);
    assert.equal(pythonJsonDumps(result.value), '[{"name": "add", "arguments": {"arg_0": 3.0, "arg_1": true}}]');
  });

  test('an integral float keeps its mark wherever it is', () => {
    const result = parseLenientJson('{"output": [{"arguments": {"arg_0": 130.0}}], "gold_answer": 5.00}');
    assert.ok(result.ok);
    assert.equal(pythonJsonDumps(result.value), '{"output": [{"arguments": {"arg_0": 130.0}}], "gold_answer": 5.0}');
    assert.deepEqual(parseLenientJson('7.0'), { ok: true, value: 7, isFloat: true });
    assert.deepEqual(parseLenientJson('7'), { ok: true, value: 7, isFloat: false });
  });

  test('a __proto__ key is an own property on both paths, never the prototype', () => {
    for (const text of ['{"__proto__": {"polluted": 1}}', '{"__proto__": {"polluted": 1}, "f": 1.0}', "{'__proto__': {'polluted': 1}}"]) {
      const result = parseLenientJson(text);
      assert.ok(result.ok, text);
      const value = result.value as Record<string, unknown>;
      assert.equal(Object.getPrototypeOf(value), Object.prototype, text);
      assert.deepEqual(Object.keys(value)[0], '__proto__', text);
      assert.equal((value as { polluted?: unknown }).polluted, undefined, text);
    }
  });

  test('nesting past 256 levels is unparsable on both paths', () => {
    for (const depth of [256, 257, 1000]) {
      const text = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      assert.equal(parseLenientJson(text).ok, depth <= 256, String(depth));
      assertSameAsLenientParser(text);
    }
  });

  test('bad text fails the same way', () => {
    for (const text of ['', '   ', '[1, 2', '{"a": }', '[1] x', 'nope', '1e999']) {
      assert.equal(parseLenientJson(text).ok, false, text);
      assertSameAsLenientParser(text);
    }
  });
});

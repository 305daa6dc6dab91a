import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloatLiteral, parseLenientJson } from '../../../src/suites/nestful/lenient-json.ts';
import type { JsonValue } from '../../../src/core/json.ts';
import { pythonFloatDecimals, pythonFloatRepr, pythonJsonDumps, pythonRepr, pythonRound, pythonStr, walkJsonDumps } from '../../../src/suites/nestful/python-format.ts';

describe('python float repr', () => {
  test('matches repr(float) in fixed and scientific ranges', () => {
    const cases: [number, string][] = [
      [130, '130.0'], [0.1, '0.1'], [1.3564, '1.3564'], [-2.5, '-2.5'], [0.0001, '0.0001'], [0.00001, '1e-05'],
      [1e16, '1e+16'], [1.5e20, '1.5e+20'], [123456789.125, '123456789.125'], [1e15, '1000000000000000.0'], [0, '0.0'],
    ];
    for (const [value, expected] of cases) assert.equal(pythonFloatRepr(value), expected, String(value));
  });

  test('decimals are counted as len(str(gold).split(".")[1])', () => {
    assert.equal(pythonFloatDecimals(130), 1);
    assert.equal(pythonFloatDecimals(1.3564), 4);
    assert.equal(pythonFloatDecimals(1.5e20), 5); // '1.5e+20'.split('.')[1] is '5e+20'
    assert.equal(pythonFloatDecimals(1e16), undefined);
  });

  test('round() is exact with ties to even', () => {
    assert.equal(pythonRound(2.675, 2), 2.67); // 2.675 is stored just below the tie
    assert.equal(pythonRound(0.125, 2), 0.12);
    assert.equal(pythonRound(0.375, 2), 0.38);
    assert.equal(pythonRound(2.5, 0), 2);
    assert.equal(pythonRound(129.99999999999997, 1), 130);
    assert.equal(pythonRound(-0.125, 2), -0.12);
    assert.equal(pythonRound(3.5, 0), 4);
  });

  test('str() and json.dumps forms keep float literals', () => {
    const parsed = parseLenientJson("{'a': 130.0, 'b': [1, 2.0, 'x'], 'c': None, 'd': True}");
    assert.ok(parsed.ok);
    const value = parsed.value as Record<string, never>;
    assert.ok(isFloatLiteral(value, 'a'));
    assert.equal(pythonStr(value.a, isFloatLiteral(value, 'a')), '130.0');
    assert.equal(pythonStr(value.b), "[1, 2.0, 'x']");
    assert.equal(pythonRepr(parsed.value), "{'a': 130.0, 'b': [1, 2.0, 'x'], 'c': None, 'd': True}");
    assert.equal(pythonJsonDumps(parsed.value), '{"a": 130.0, "b": [1, 2.0, "x"], "c": null, "d": true}');
    assert.equal(pythonStr("it's"), "it's");
    assert.equal(pythonRepr("it's"), '"it\'s"');
    assert.equal(pythonJsonDumps('café'), '"caf\\u00e9"');
  });
});

describe('lenient JSON', () => {
  test('accepts single quotes, trailing commas, unquoted keys and Python literals', () => {
    const parsed = parseLenientJson("[{name: 'add', 'arguments': {'arg_0': 1, 'arg_1': False,},},]");
    assert.deepEqual(parsed, { ok: true, value: [{ name: 'add', arguments: { arg_0: 1, arg_1: false } }], isFloat: false });
  });

  test('reports errors instead of throwing', () => {
    const parsed = parseLenientJson('[{"name": "add"');
    assert.equal(parsed.ok, false);
    assert.equal(parseLenientJson('[1] trailing').ok, false);
    assert.equal(parseLenientJson('').ok, false);
    assert.equal(parseLenientJson('['.repeat(100_000)).ok, false);
  });

  test('top-level float literal is reported', () => {
    assert.deepEqual(parseLenientJson('75.0'), { ok: true, value: 75, isFloat: true });
    assert.deepEqual(parseLenientJson('75'), { ok: true, value: 75, isFloat: false });
  });
});

describe('json.dumps fast path', () => {
  test('writes what the walk writes, for strings with quotes, separators, escapes and non-ASCII, nested containers and numbers', () => {
    const strings = ['plain', 'a, b: c', 'quote " inside', 'back\\slash', 'tab\tnew\nline', 'ctl\u0001\u001f', 'caf\u00e9', 'emoji \u{1f600}', 'lone \ud800 surrogate', 'del \u007f', '', ':', ',', '\\"'];
    const numbers = [0, 1, -7, 42, 2 ** 53 - 1, 2 ** 53, 1.5, -0, 1e21, 0.0001];
    // A seeded walk over shapes (no Math.random in tests either: the cases are the same every run).
    let state = 17;
    const next = (modulo: number): number => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % modulo;
    };
    const value = (depth: number): JsonValue => {
      const kind = next(depth > 3 ? 4 : 6);
      if (kind === 0) return strings[next(strings.length)];
      if (kind === 1) return numbers[next(numbers.length)];
      if (kind === 2) return [null, true, false][next(3)];
      if (kind === 3) return strings[next(strings.length)];
      if (kind === 4) return Array.from({ length: next(4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: next(4) }, () => [strings[next(strings.length)], value(depth + 1)]));
    };
    let fast = 0;
    for (let index = 0; index < 2000; index += 1) {
      const sample = [value(0), value(1)];
      assert.equal(pythonJsonDumps(sample), walkJsonDumps(sample), JSON.stringify(sample));
      if (!JSON.stringify(sample).match(/\d\.|e\+|-0|9007199254740992/)) fast += 1;
    }
    assert.ok(fast > 100, `the fast path was taken for ${fast} cases`);
    // Float-marked values keep their Python forms.
    const parsed = parseLenientJson('[{"name": "add", "arguments": {"arg_0": 12.0, "arg_1": 3}}]');
    assert.ok(parsed.ok);
    assert.equal(pythonJsonDumps(parsed.value), '[{"name": "add", "arguments": {"arg_0": 12.0, "arg_1": 3}}]');
    assert.equal(pythonJsonDumps({ a: [1, { b: 'x, y' }], 'k:1': 'v' }), '{"a": [1, {"b": "x, y"}], "k:1": "v"}');
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonListShapeError, jsonListItems } from '../../src/core/json-list-items.ts';

/** The text cut into chunks of `size` characters (every cut position is tried by the callers). */
function chunked(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size) chunks.push(text.slice(start, start + size));
  return chunks;
}

describe('jsonListItems', () => {
  const tricky = [
    { id: 'a', text: 'commas, [brackets] and {braces} in a string' },
    { id: 'b', text: 'an escaped quote \\" and a backslash at the end \\\\' },
    [1, [2, [3, {}]], []],
    'single \' quote inside double quotes',
    { nested: { deeper: [{ x: '],' }] } },
    12.5,
    null,
  ];
  const text = ` \n[ ${tricky.map((item) => JSON.stringify(item)).join(' ,\n ')} ]\n `;

  test('splits a list at its top-level commas, whatever the chunk size', () => {
    const expected = tricky.map((item) => JSON.stringify(item));
    for (const size of [1, 2, 3, 7, 16, 64, text.length]) {
      assert.deepEqual([...jsonListItems(chunked(text, size))], expected, `chunks of ${size}`);
    }
  });

  test('single-quoted strings (Python literals) are passed over whole', () => {
    const python = "[{'k': 'a, ] } [ \"'}, {'k': 'it\\'s'}]";
    assert.deepEqual([...jsonListItems(chunked(python, 3))], ["{'k': 'a, ] } [ \"'}", "{'k': 'it\\'s'}"]);
  });

  test('an empty list has no items; a trailing comma adds none; an empty item between commas is handed on', () => {
    assert.deepEqual([...jsonListItems(['[', ' ]'])], []);
    assert.deepEqual([...jsonListItems(['[1, 2,', ' ]'])], ['1', '2']);
    assert.deepEqual([...jsonListItems(['[1,,2]'])], ['1', '', '2']);
  });

  test('items are handed on as they are reached, before the rest of the text is read', () => {
    function* chunks(): Generator<string> {
      yield '[{"a": 1}, ';
      throw new Error('read past the first item');
    }
    const items = jsonListItems(chunks());
    assert.equal(items.next().value, '{"a": 1}');
    assert.throws(() => items.next(), /read past the first item/);
  });

  test('text that is not one list is a JsonListShapeError saying what is wrong', () => {
    const cases: [string[], RegExp][] = [
      [['{"a": 1}'], /does not start with '\['/],
      [['  '], /empty/],
      [[], /empty/],
      [['[1, 2'], /not closed/],
      [['["open string]'], /string is not closed/],
      [['[1] [2]'], /text after the list/],
      [['[1}, 2]'], /unbalanced '}'/],
    ];
    for (const [chunks, message] of cases) {
      assert.throws(() => [...jsonListItems(chunks)], (error: unknown) => error instanceof JsonListShapeError && message.test(error.message), chunks.join(''));
    }
  });
});

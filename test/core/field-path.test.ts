import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFieldPath } from '../../src/core/field-path.ts';

test('a field path reads as written: indexes in brackets, names after dots, odd keys quoted', () => {
  assert.equal(formatFieldPath(['models', 1, 'ref']), 'models[1].ref');
  assert.equal(formatFieldPath(['turns', 0, 'toolCalls', 2, 'arguments']), 'turns[0].toolCalls[2].arguments');
  assert.equal(formatFieldPath([0, 'name']), '[0].name');
  assert.equal(formatFieldPath(['openai/gpt-4.1', 'input']), '["openai/gpt-4.1"].input');
  assert.equal(formatFieldPath(['retry-after', 'a b']), 'retry-after["a b"]');
  assert.equal(formatFieldPath([], 'expected'), 'expected');
  assert.equal(formatFieldPath(['calls', 3], 'expected'), 'expected.calls[3]');
  assert.equal(formatFieldPath([]), '');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { repeatedJsonKey } from '../../src/core/repeated-json-key.ts';

test('the first key given twice in one object is named with its line and column', () => {
  assert.equal(repeatedJsonKey('{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}'), undefined, 'the same key in different objects is fine');
  assert.deepEqual(repeatedJsonKey('{"set": {"core": 4,\n  "core": 5}}'), { key: 'core', line: 2, column: 3 });
  assert.deepEqual(repeatedJsonKey('[{"x": 1}, {"y": 1, "y\\"q": 2, "y\\"q": 3}]'), { key: 'y"q', line: 1, column: 32 });
  assert.deepEqual(repeatedJsonKey('{"é": 1, "é": 2}'), { key: 'é', line: 1, column: 10 });
  assert.equal(repeatedJsonKey('[]'), undefined);
});

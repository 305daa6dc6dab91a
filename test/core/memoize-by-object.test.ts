import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoizeByObject } from '../../src/core/memoize-by-object.ts';

test('memoizeByObject computes once per object, by identity, and remembers undefined results too', () => {
  const calls: object[] = [];
  const keyOf = memoizeByObject((key: { name?: string }) => { calls.push(key); return key.name; });
  const first = { name: 'a' };
  const nameless = {};
  assert.equal(keyOf(first), 'a');
  assert.equal(keyOf(first), 'a');
  assert.equal(keyOf({ name: 'a' }), 'a');
  assert.equal(keyOf(nameless), undefined);
  assert.equal(keyOf(nameless), undefined);
  assert.deepEqual(calls, [first, { name: 'a' }, nameless]);
});

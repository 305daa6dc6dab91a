import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editDistance } from '../../src/core/edit-distance.ts';

test('edit distance counts insertions, deletions, substitutions and neighbour swaps', () => {
  assert.equal(editDistance('trials', 'trials'), 0);
  assert.equal(editDistance('trails', 'trials'), 1); // one swap, not two substitutions
  assert.equal(editDistance('seed', 'seeds'), 1);
  assert.equal(editDistance('output', 'outpt'), 1);
  assert.equal(editDistance('model', 'modelRef'), 3);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  // Optimal string alignment: a swapped pair is not edited again ('ca' -> 'abc' is 3, not the 2 of full Damerau).
  assert.equal(editDistance('ca', 'abc'), 3);
});

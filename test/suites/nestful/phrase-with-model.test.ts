import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepsEveryNumber } from '../../../src/suites/nestful/phrase-with-model.ts';

test('a rephrasing is kept only when every number of the question survives', () => {
  const question = 'Add 12 and 3.5, then multiply the result by 1,000 and subtract -4.';
  assert.equal(keepsEveryNumber(question, 'Sam has 12 apples and buys 3.5 more; scaled by 1000, minus 4, how many?'), true);
  assert.equal(keepsEveryNumber(question, 'The answer is 42.'), false);
  assert.equal(keepsEveryNumber(question, 'Sam has 12 apples and buys 3 more; scaled by 1000, minus 4?'), false, '3.5 became 3');
  assert.equal(keepsEveryNumber(question, ''), false);
});

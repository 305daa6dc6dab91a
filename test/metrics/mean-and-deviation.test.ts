import { test } from 'node:test';
import assert from 'node:assert/strict';
import { meanAndDeviation } from '../../src/metrics/mean-and-deviation.ts';

test('meanAndDeviation uses the sample (n - 1) standard deviation', () => {
  // mean 5, squared deviations 9+1+1+9 = 20, 20/3 -> sqrt = 2.5819888974716
  const result = meanAndDeviation([2, 4, 6, 8]);
  assert.equal(result.count, 4);
  assert.equal(result.mean, 5);
  assert.ok(Math.abs(result.standardDeviation - Math.sqrt(20 / 3)) < 1e-12);
});

test('meanAndDeviation of one or no values has no spread', () => {
  assert.deepEqual(meanAndDeviation([0.5]), { count: 1, mean: 0.5, standardDeviation: 0 });
  assert.deepEqual(meanAndDeviation([]), { count: 0, mean: 0, standardDeviation: 0 });
});

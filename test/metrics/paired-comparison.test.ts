import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairedComparison, signTestPValue } from '../../src/metrics/paired-comparison.ts';

test('signTestPValue is the exact two-sided binomial tail', () => {
  // 8 improved, 2 worsened: 2 * (C(10,0) + C(10,1) + C(10,2)) / 2^10 = 2 * 56 / 1024
  assert.ok(Math.abs(signTestPValue(8, 2) - 112 / 1024) < 1e-15);
  assert.equal(signTestPValue(5, 5), 1);
  assert.equal(signTestPValue(0, 0), 1);
  assert.ok(Math.abs(signTestPValue(6, 0) - 2 / 64) < 1e-15);
  // Large counts do not underflow to 0 or NaN.
  const large = signTestPValue(2000, 1900);
  assert.ok(large > 0.1 && large < 0.12, String(large));
});

test('pairedComparison pairs by task id and differences treatment - baseline', () => {
  const result = pairedComparison({ a: 0, b: 1, c: 0, d: 1, only: 1 }, { d: 0, c: 1, b: 1, a: 1 });
  assert.equal(result.pairs, 4);
  assert.equal(result.unpaired, 1);
  assert.equal(result.baselineMean, 0.5);
  assert.equal(result.treatmentMean, 0.75);
  assert.equal(result.meanDifference, 0.25);
  assert.deepEqual(result.signTest, { improved: 2, worsened: 1, ties: 1, pValue: 1 });
  const [low, high] = result.differenceCI95;
  assert.ok(low <= 0.25 && 0.25 <= high && low >= -1 && high <= 1);
});

test('pairedComparison is deterministic for a seed and independent of key order', () => {
  const baseline = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`t${index}`, index % 3 === 0 ? 1 : 0]));
  const treatment = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`t${29 - index}`, (29 - index) % 2]));
  const first = pairedComparison(baseline, treatment, { seed: 7 });
  const reversed = Object.fromEntries(Object.entries(treatment).reverse());
  assert.deepEqual(pairedComparison(baseline, reversed, { seed: 7 }), first);
  assert.equal(JSON.stringify(pairedComparison(baseline, treatment, { seed: 7 })), JSON.stringify(first));
});

test('pairedComparison with identical conditions has a zero difference and interval', () => {
  const values = { a: 1, b: 0, c: 1 };
  const result = pairedComparison(values, values);
  assert.equal(result.meanDifference, 0);
  assert.deepEqual(result.differenceCI95, [0, 0]);
  assert.deepEqual(result.signTest, { improved: 0, worsened: 0, ties: 3, pValue: 1 });
});

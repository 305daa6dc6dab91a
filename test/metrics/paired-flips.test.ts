import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mcnemarExactPValue } from '../../src/metrics/mcnemar-test.ts';
import { pairedFlips, pairedFlipsByTreatment } from '../../src/metrics/paired-flips.ts';

describe('exact McNemar test', () => {
  test('hand-computed binomial tails', () => {
    assert.equal(mcnemarExactPValue(0, 0), 1);
    assert.equal(mcnemarExactPValue(1, 0), 1); // 2 * 1/2
    assert.equal(mcnemarExactPValue(5, 0), 0.0625); // 2 * 1/32
    assert.equal(mcnemarExactPValue(0, 10), 0.001953125); // 2 * 1/1024
    assert.equal(mcnemarExactPValue(2, 8), 0.109375); // 2 * (1 + 10 + 45) / 1024
    assert.equal(mcnemarExactPValue(8, 2), 0.109375);
    assert.equal(mcnemarExactPValue(3, 9), 0.14599609375); // 2 * (1 + 12 + 66 + 220) / 4096
    assert.equal(mcnemarExactPValue(5, 5), 1);
    assert.ok(mcnemarExactPValue(0, 3000) === 0 || mcnemarExactPValue(0, 3000) < 1e-300, 'no overflow for large counts');
    assert.throws(() => mcnemarExactPValue(-1, 2), /passToFail must be a count/);
  });
});

describe('paired flips', () => {
  test('flips, rates, drop and p-value on a hand-made pairing', () => {
    const baseline = { a: true, b: true, c: true, d: false, e: false, f: true, only: true };
    const treatment = { a: true, b: false, c: false, d: true, e: false, f: false, extra: false };
    const flips = pairedFlips(baseline, treatment);
    assert.deepEqual(flips, {
      pairs: 6,
      unpaired: ['extra', 'only'],
      bothPassed: 1,
      bothFailed: 1,
      passToFail: ['b', 'c', 'f'],
      failToPass: ['d'],
      baselinePassRate: 4 / 6,
      treatmentPassRate: 2 / 6,
      drop: 4 / 6 - 2 / 6,
      mcnemarPValue: 0.625, // 2 * (1 + 4) / 16
    });
  });

  test('one row per treatment against the same baseline', () => {
    const rows = pairedFlipsByTreatment({ a: true, b: true }, { 'drift:type': { a: false, b: true }, 'drift:all': { a: false, b: false } });
    assert.deepEqual(rows.map((row) => [row.treatment, row.passToFail, row.drop, row.mcnemarPValue]), [
      ['drift:all', ['a', 'b'], 1, 0.5],
      ['drift:type', ['a'], 0.5, 1],
    ]);
    assert.equal(pairedFlips({}, {}).baselinePassRate, 0);
  });
});

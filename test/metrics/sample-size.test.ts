import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { normalQuantile } from '../../src/metrics/normal-quantile.ts';
import { pairedSampleSize } from '../../src/metrics/paired-sample-size.ts';
import { latencyPercentiles, percentile } from '../../src/metrics/percentile.ts';

describe('normal quantile', () => {
  test('matches tabulated values', () => {
    assert.ok(Math.abs(normalQuantile(0.975) - 1.959963984540054) < 1e-8);
    assert.ok(Math.abs(normalQuantile(0.8) - 0.8416212335729143) < 1e-8);
    assert.ok(Math.abs(normalQuantile(0.5)) < 1e-12);
    assert.ok(Math.abs(normalQuantile(0.001) + 3.090232306167813) < 1e-8);
    assert.ok(Math.abs(normalQuantile(0.999) - 3.090232306167813) < 1e-8);
    assert.throws(() => normalQuantile(1), RangeError);
  });
});

describe('percentiles', () => {
  test('linear interpolation between closest ranks (type 7)', () => {
    assert.equal(percentile([3, 1, 2, 4], 0.5), 2.5);
    assert.equal(percentile([10, 20, 30, 40, 50], 0.9), 46); // position 3.6: 40 + 0.6 * 10
    assert.equal(percentile([7], 0.99), 7);
    assert.equal(percentile([], 0.5), undefined);
    const values = Array.from({ length: 101 }, (_, index) => index * 10);
    assert.deepEqual(latencyPercentiles(values), { p50: 500, p90: 900, p99: 990 });
    assert.equal(latencyPercentiles([]), undefined);
  });
});

describe('paired sample size (Connor 1987)', () => {
  test('hand-computed: p10 = 0.1, p01 = 0.25', () => {
    // ψ = 0.35, δ = 0.15: (1.959964·√0.35 + 0.841621·√0.3275)² / 0.0225 = (1.159529 + 0.481643)² / 0.0225 = 119.7 -> 120
    assert.equal(pairedSampleSize({ baselineOnly: 10, treatmentOnly: 25, pairs: 100 }), 120);
    // Symmetric in direction: the same gap the other way needs the same number.
    assert.equal(pairedSampleSize({ baselineOnly: 25, treatmentOnly: 10, pairs: 100 }), 120);
    // A bigger gap needs fewer pairs; stricter alpha or higher power more.
    assert.ok((pairedSampleSize({ baselineOnly: 0, treatmentOnly: 30, pairs: 100 }) as number) < 120);
    assert.ok((pairedSampleSize({ baselineOnly: 10, treatmentOnly: 25, pairs: 100, power: 0.9 }) as number) > 120);
    assert.ok((pairedSampleSize({ baselineOnly: 10, treatmentOnly: 25, pairs: 100, alpha: 0.01 }) as number) > 120);
  });

  test('no observed difference: nothing to detect', () => {
    assert.equal(pairedSampleSize({ baselineOnly: 4, treatmentOnly: 4, pairs: 20 }), null);
    assert.equal(pairedSampleSize({ baselineOnly: 0, treatmentOnly: 0, pairs: 0 }), null);
    assert.throws(() => pairedSampleSize({ baselineOnly: 8, treatmentOnly: 4, pairs: 10 }), RangeError);
  });

  /**
   * Simulated studies of n pairs drawn with the observed discordant proportions, each tested with the
   * two-sided McNemar z test (|b - c| / √(b + c) > z_{0.975}): at the computed n about 80% of them
   * detect the difference; at half of n clearly fewer.
   */
  function simulatedPower(pairs: number, p10: number, p01: number, studies: number, seed: number): number {
    const rng = new Rng(seed);
    let detected = 0;
    for (let study = 0; study < studies; study += 1) {
      let b = 0;
      let c = 0;
      for (let pair = 0; pair < pairs; pair += 1) {
        const draw = rng.float();
        if (draw < p10) b += 1;
        else if (draw < p10 + p01) c += 1;
      }
      if (b + c > 0 && Math.abs(b - c) / Math.sqrt(b + c) > normalQuantile(0.975)) detected += 1;
    }
    return detected / studies;
  }

  for (const [baselineOnly, treatmentOnly, pairs] of [[10, 25, 100], [6, 18, 60], [2, 12, 50]] as const) {
    test(`agrees with a seeded simulation (${baselineOnly} vs ${treatmentOnly} discordant of ${pairs})`, () => {
      const needed = pairedSampleSize({ baselineOnly, treatmentOnly, pairs }) as number;
      const power = simulatedPower(needed, baselineOnly / pairs, treatmentOnly / pairs, 4000, 13);
      // The formula is asymptotic: at a few dozen pairs it errs on the safe side (0.85 at n = 53 here).
      assert.ok(power >= 0.77 && power <= 0.86, `simulated power at n=${needed} is ${power}`);
      assert.ok(simulatedPower(Math.ceil(needed / 2), baselineOnly / pairs, treatmentOnly / pairs, 4000, 14) < 0.65);
    });
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wilsonInterval } from '../../src/metrics/wilson-interval.ts';

const round = (values: [number, number]): number[] => values.map((value) => Math.round(value * 1e4) / 1e4);

test('wilsonInterval gives the hand-computed 95% interval for 8/10', () => {
  // center (0.8 + z²/20) / (1 + z²/10) = 0.71677, half-width 0.22658
  assert.deepEqual(round(wilsonInterval(8, 10)), [0.4902, 0.9433]);
});

test('wilsonInterval touches 0 at 0/n and 1 at n/n exactly', () => {
  assert.deepEqual(round(wilsonInterval(0, 10)), [0, 0.2775]);
  assert.deepEqual(round(wilsonInterval(10, 10)), [0.7225, 1]);
  assert.equal(wilsonInterval(10, 10)[1], 1);
});

test('wilsonInterval is symmetric around one half for 1/2', () => {
  assert.deepEqual(round(wilsonInterval(1, 2)), [0.0945, 0.9055]);
});

test('wilsonInterval of no trials is all of [0, 1]', () => {
  assert.deepEqual(wilsonInterval(0, 0), [0, 1]);
});

test('wilsonInterval rejects impossible counts', () => {
  assert.throws(() => wilsonInterval(11, 10), RangeError);
  assert.throws(() => wilsonInterval(-1, 10), RangeError);
  assert.throws(() => wilsonInterval(1.5, 10), RangeError);
});

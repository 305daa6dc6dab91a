import { test } from 'node:test';
import assert from 'node:assert/strict';
import { meanPassAtK, meanPassHatK, passAtK, passHatK } from '../../src/metrics/pass-at-k.ts';

const close = (actual: number | undefined, expected: number): void => {
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-12, `${actual} != ${expected}`);
};

test('passAtK is 1 - C(n-c, k) / C(n, k)', () => {
  close(passAtK(5, 2, 2), 1 - 3 / 10); // C(3,2)=3, C(5,2)=10
  close(passAtK(10, 3, 5), 1 - 21 / 252); // C(7,5)=21, C(10,5)=252
  close(passAtK(4, 1, 1), 0.25); // pass@1 is the plain pass rate
  close(passAtK(3, 0, 2), 0);
  close(passAtK(3, 2, 2), 1); // only one failure: any two trials include a pass
});

test('passHatK is C(c, k) / C(n, k) (all k drawn trials pass)', () => {
  close(passHatK(5, 2, 2), 1 / 10);
  close(passHatK(4, 3, 2), 3 / 6);
  close(passHatK(4, 4, 4), 1);
  close(passHatK(4, 3, 4), 0);
  close(passHatK(8, 6, 1), 0.75);
});

test('mean over tasks leaves out tasks with fewer than k trials', () => {
  const tasks = [{ total: 2, passed: 1 }, { total: 2, passed: 2 }, { total: 1, passed: 1 }];
  close(meanPassAtK(tasks, 2), (1 + 1) / 2);
  close(meanPassHatK(tasks, 2), (0 + 1) / 2);
  close(meanPassHatK(tasks, 1), (0.5 + 1 + 1) / 3);
  assert.equal(meanPassAtK(tasks, 3), undefined);
});

test('k larger than the number of trials is refused', () => {
  assert.throws(() => passAtK(2, 1, 3), RangeError);
  assert.throws(() => passHatK(2, 3, 1), RangeError);
});

/**
 * Repeated-trial metrics for one task with `total` scored trials of which `passed` passed.
 * - pass@k: the chance that at least one of k trials drawn without replacement passes, with the
 *   unbiased estimator 1 - C(n-c, k) / C(n, k) (Chen et al., 2021).
 * - pass^k: the chance that all k drawn trials pass, C(c, k) / C(n, k) (tau-bench's pass_hat_k).
 * Averaging either over tasks gives the benchmark figure. Both need k <= n.
 */
export function passAtK(total: number, passed: number, k: number): number {
  checkArguments('passAtK', total, passed, k);
  if (total - passed < k) return 1;
  // 1 - prod_{i = n-c+1}^{n} (1 - k / i): the ratio of binomials without overflowing factorials.
  let allFail = 1;
  for (let index = total - passed + 1; index <= total; index += 1) allFail *= 1 - k / index;
  return 1 - allFail;
}

export function passHatK(total: number, passed: number, k: number): number {
  checkArguments('passHatK', total, passed, k);
  if (passed < k) return 0;
  // C(c, k) / C(n, k) = prod_{i=0}^{k-1} (c - i) / (n - i).
  let allPass = 1;
  for (let index = 0; index < k; index += 1) allPass *= (passed - index) / (total - index);
  return allPass;
}

/** Mean of pass@k over tasks; tasks with fewer than k scored trials are left out (the estimator needs n >= k). */
export function meanPassAtK(tasks: readonly { total: number; passed: number }[], k: number): number | undefined {
  return meanOver(tasks.filter((task) => task.total >= k).map((task) => passAtK(task.total, task.passed, k)));
}

/** Mean of pass^k over tasks; tasks with fewer than k scored trials are left out. */
export function meanPassHatK(tasks: readonly { total: number; passed: number }[], k: number): number | undefined {
  return meanOver(tasks.filter((task) => task.total >= k).map((task) => passHatK(task.total, task.passed, k)));
}

function meanOver(values: number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function checkArguments(name: string, total: number, passed: number, k: number): void {
  if (![total, passed, k].every(Number.isInteger) || passed < 0 || passed > total || k < 1 || k > total) {
    throw new RangeError(`${name}: need integers 0 <= passed <= total and 1 <= k <= total, got total=${total} passed=${passed} k=${k}`);
  }
}

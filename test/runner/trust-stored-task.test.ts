/**
 * Tasks read back from a run's store were checked as they entered the run: their suite's readers do not check their
 * ground truth again in each episode (a zod pass over a funcgen graph was most of a run's garbage at 256 in flight).
 * Tasks from anywhere else are still checked on first read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { trustStoredTask } from '../../src/runner/store-tasks.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { readFuncgenTask } from '../../src/suites/funcgen/funcgen-task.ts';
import type { Task } from '../../src/core/task.ts';

const suite = getSuite('funcgen');
const params = resolveKnobs(suite.id, suite.knobs, { core: '4' });
const [made] = await generateTasks(suite, { seed: 5, count: 1, params });
/** A fresh object, as the store hands back (a JSON parse of the stored row). */
const reread = (): Task => JSON.parse(JSON.stringify(made)) as Task;

/** How many times the suite's ground-truth schema runs while `read` does. */
function countChecks(read: () => void): number {
  const schema = suite.expectedSchema as unknown as { safeParse: (...args: unknown[]) => unknown };
  const original = schema.safeParse;
  let calls = 0;
  schema.safeParse = (...args: unknown[]) => {
    calls += 1;
    return original.apply(schema, args);
  };
  try {
    read();
  } finally {
    schema.safeParse = original;
  }
  return calls;
}

test('a task from the store is read without checking its ground truth again; any other task is checked once', () => {
  assert.equal(countChecks(() => readFuncgenTask(trustStoredTask(suite, reread()))), 0);
  const fresh = reread();
  assert.equal(countChecks(() => { readFuncgenTask(fresh); readFuncgenTask(fresh); }), 1);
});

test('a task that did not come from a store still has its broken ground truth refused', () => {
  const broken = reread();
  (broken.expected as { target: { value: number } }).target.value += 1;
  assert.throws(() => readFuncgenTask(broken), (error: Error & { code?: string }) => error.code === 'suite.invalid-task' && /target/.test(error.message));
});

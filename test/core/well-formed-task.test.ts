import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Task } from '../../src/core/task.ts';
import { taskSchema } from '../../src/core/task.ts';
import { checkOnce } from '../../src/core/checked-once.ts';
import { isWellFormedTask } from '../../src/core/well-formed-task.ts';
import { Rng } from '../../src/core/rng.ts';
import { funcgenSuite } from '../../src/suites/funcgen/index.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';

const [funcgenTask] = await funcgenSuite.generate({ seed: 3, count: 1, params: resolveKnobs('funcgen', funcgenSuite.knobs, { core: '3', depth: '2', connected: '1', disconnected: '1' }) });

/** Every optional field of a task filled, so corruptions reach them. */
const fullTask: Task = {
  ...(funcgenTask as Task),
  prompt: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Reach x.' }],
  query: 'Reach x.',
  docs: 'some docs',
  starter: 'const x = 1;',
  modes: ['calls', 'react', 'sequence', 'code'],
};

type Path = (string | number)[];

/** Every path to a value inside `value` (objects and arrays walked), the root excluded. */
function pathsOf(value: unknown, path: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value);
  return keys.flatMap((key) => [[...path, key], ...pathsOf((value as Record<string | number, unknown>)[key], [...path, key])]);
}

/** A deep copy of `task` with the value at `path` replaced (or deleted, for `undefined` on an object key). */
function withValue(task: Task, path: Path, value: unknown): unknown {
  const copy = structuredClone(task) as unknown as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined && !Array.isArray(parent)) delete parent[last];
  else parent[last] = value;
  return copy;
}

/** What a corrupted field may hold: each of JSON's kinds, edge numbers, and non-plain objects. */
const replacements: unknown[] = [
  undefined, null, 0, -1, 1.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, 2_147_483_648, '', 'x', 'calls', 'user', 'system', 'assistant', true,
  [], ['calls'], ['calls', 'calls'], {}, { role: 'user' }, { role: 'user', content: 'x' }, new Date(0), new Map(), Object.create({ inherited: 1 }),
  { [Symbol('key')]: 1 }, { name: 'a', description: '', inputSchema: [] },
];

test('the quick task check takes a well-formed task and gives the same answer for it read back from JSON', () => {
  assert.ok(isWellFormedTask(funcgenTask));
  assert.ok(isWellFormedTask(fullTask));
  assert.ok(taskSchema.safeParse(fullTask).success);
  assert.ok(isWellFormedTask(JSON.parse(JSON.stringify(fullTask))));
});

test('the quick task check never says yes where taskSchema says no: every field of a task, corrupted every way', () => {
  let refused = 0;
  let corrupted = 0;
  let quickYes = 0;
  for (const path of [[], ...pathsOf(fullTask)]) {
    for (const replacement of replacements) {
      const value = path.length === 0 ? replacement : withValue(fullTask, path, replacement);
      corrupted += 1;
      const zodSays = taskSchema.safeParse(value).success;
      if (isWellFormedTask(value)) {
        assert.ok(zodSays, `the quick check took what zod refuses: ${JSON.stringify(path)} = ${String(replacement)}`);
        quickYes += 1;
      }
      if (!zodSays) refused += 1;
    }
  }
  // The corruptions reach real refusals (a check that could not fail would pass with none), and the quick check
  // still takes nearly all that zod takes (most corruptions land in the free-form expected, params and schemas).
  assert.equal(corrupted, 6102);
  assert.ok(refused >= 1000, `${refused} of ${corrupted} corruptions refused by zod`);
  assert.ok(quickYes >= 0.9 * (corrupted - refused), `the quick check took ${quickYes} of the ${corrupted - refused} zod takes`);
});

test('the quick task check agrees with taskSchema on random mixes of corruptions', () => {
  const rng = new Rng(11);
  for (let trial = 0; trial < 2000; trial += 1) {
    let value: unknown = fullTask;
    for (let change = rng.int(1, 3); change > 0; change -= 1) {
      // The paths of the value as corrupted so far: an earlier change may have removed some.
      const paths = pathsOf(value);
      if (paths.length === 0) break;
      value = withValue(value as Task, rng.pick(paths), rng.pick(replacements));
    }
    if (isWellFormedTask(value)) assert.ok(taskSchema.safeParse(value).success, `trial ${trial}: the quick check took what zod refuses`);
  }
});

test('a task the quick check is unsure of still passes through zod: a derived task, a task with a duplicate mode refused by name', () => {
  const derived = { ...funcgenTask, origin: { taskId: funcgenTask.id, taskDigest: 'abc', transforms: [] } };
  assert.equal(isWellFormedTask(derived), false);
  assert.equal(checkOnce(taskSchema, derived), undefined);
  const twice = { ...funcgenTask, modes: ['calls', 'calls'] };
  assert.equal(isWellFormedTask(twice), false);
  assert.deepEqual(checkOnce(taskSchema, twice)?.issues[0]?.path, ['modes', 1]);
  const limits = { ...funcgenTask, limits: { ...funcgenTask.limits, timeLimitMs: 2_147_483_648 } };
  assert.equal(isWellFormedTask(limits), false);
  assert.deepEqual(checkOnce(taskSchema, limits)?.issues[0]?.path, ['limits', 'timeLimitMs']);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { checkOnce } from '../../src/core/checked-once.ts';

/** A schema that counts how many times it really ran. */
function countingSchema(): { schema: z.ZodType; runs: () => number } {
  let runs = 0;
  const schema = z.object({ value: z.number().int() }).refine(() => { runs += 1; return true; });
  return { schema, runs: () => runs };
}

test('a pass of the same object against the same schema is remembered; another object or schema is checked', () => {
  const { schema, runs } = countingSchema();
  const other = countingSchema();
  const value = { value: 3 };
  assert.equal(checkOnce(schema, value), undefined);
  assert.equal(checkOnce(schema, value), undefined);
  assert.equal(runs(), 1);
  assert.equal(checkOnce(schema, { value: 3 }), undefined);
  assert.equal(runs(), 2);
  assert.equal(checkOnce(other.schema, value), undefined);
  assert.equal(other.runs(), 1);
});

test('a failure is returned every time and never remembered as a pass', () => {
  const schema = z.object({ value: z.number().int() });
  const value = { value: 1.5 };
  for (let check = 0; check < 2; check += 1) {
    const error = checkOnce(schema, value);
    assert.ok(error);
    assert.deepEqual(error.issues[0]?.path, ['value']);
  }
  assert.ok(checkOnce(z.number().int(), 1.5), 'primitives are checked, not remembered');
  assert.equal(checkOnce(z.number().int(), 2), undefined);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groundResultValues } from '../../../src/suites/nestful/ground-result-values.ts';
import type { ExecutedCall } from '../../../src/suites/nestful/ground-result-values.ts';

const calls: ExecutedCall[] = [
  { name: 'multiply', label: '$var_1', arguments: { arg_0: 150, arg_1: 2 }, result: 300, output: 'result' },
  { name: 'add', label: '$var_2', arguments: { arg_0: 480, arg_1: 300 }, result: 780, output: 'result' },
  { name: 'divide', label: '$var_3', arguments: { arg_0: 780, arg_1: 2, arg_2: '$var_1.result$' }, result: 390, output: 'result' },
];

test('a passed value equal to an earlier result becomes a reference to the latest producer', () => {
  const grounded = groundResultValues(calls, 'a student scores 480 marks from 150 questions, 2 marks each');
  assert.deepEqual(grounded.map((call) => call.arguments), [
    { arg_0: 150, arg_1: 2 },
    { arg_0: 480, arg_1: '$var_1.result$' },
    // 2 is stated in the question: a constant, not a reference; written references are kept.
    { arg_0: '$var_2.result$', arg_1: 2, arg_2: '$var_1.result$' },
  ]);
});

test('a value the question states stays a constant even when an earlier result equals it', () => {
  const grounded = groundResultValues(calls, 'numbers: 480, 150, 2 and 300');
  assert.deepEqual(grounded[1].arguments, { arg_0: 480, arg_1: 300 });
});

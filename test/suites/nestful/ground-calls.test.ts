import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, JsonValue } from '../../../src/core/json.ts';
import { groundCalls } from '../../../src/suites/nestful/evaluate-sample.ts';
import { Rng } from '../../../src/core/rng.ts';

/** The official loop, as written: every label, in first-seen order, tried on every argument. */
function officialGrounding(calls: readonly JsonObject[]): JsonObject[] {
  const producers = new Map<string, string>();
  for (const call of calls) {
    if (call.name === 'varResult' || call.name === 'var_result') continue;
    if (typeof call.label === 'string') producers.set(call.label.replaceAll('$', ''), String(call.name));
  }
  const matches = (label: string, value: string): boolean => value.startsWith('$var') && value.includes('.') && value.slice(0, value.indexOf('.')).replaceAll('$', '') === label;
  return calls.filter((call) => call.name !== 'var_result').map((call) => {
    const source = (call.arguments ?? {}) as JsonObject;
    const out: JsonObject = {};
    for (const [name, original] of Object.entries(source)) {
      let value: JsonValue = original;
      for (const [label, producer] of producers) {
        if (typeof value === 'string' && matches(label, value)) value = value.split(label).join(producer);
        else if (Array.isArray(value)) value = value.map((item) => (typeof item === 'string' && matches(label, item) ? item.split(label).join(producer) : item));
      }
      out[name] = value;
    }
    return { name: call.name ?? null, arguments: out };
  });
}

test('grounding replaces labels as the official loop does, chains and relabels included', () => {
  // var_2 is produced twice (first place, last producer); a producer named like a later label is grounded again,
  // one named like an earlier label is not.
  const calls: JsonObject[] = [
    { name: 'var_3', label: '$var_1', arguments: { arg_0: 1 } },
    { name: 'add', label: '$var_2', arguments: { arg_0: '$var_1.result$', arg_1: ['$var_1.result$', 2, '$var_9.x$'] } },
    { name: 'var_1', label: '$var_3', arguments: { arg_0: '$var_2.result$' } },
    { name: 'multiply', label: '$var_2', arguments: { arg_0: '$var_3.result$', arg_1: 'var_1.result' } },
  ];
  assert.deepEqual(groundCalls(calls), officialGrounding(calls));
  // var_1 -> var_3 (its producer), var_3 comes later: -> var_1, which comes earlier: it stays.
  assert.deepEqual(groundCalls(calls)[1].arguments, { arg_0: '$var_1.result$', arg_1: ['$var_1.result$', 2, '$var_9.x$'] });
  // Random sequences over a small alphabet of names and labels, so that names and labels collide often.
  const rng = new Rng(7);
  const names = ['add', 'var_1', 'var_2', 'var_3', 'var_12', 'varResult'];
  for (let round = 0; round < 300; round += 1) {
    const count = 1 + rng.int(0, 6);
    const randomCalls: JsonObject[] = Array.from({ length: count }, () => {
      const label = `$var_${rng.int(1, 4)}`;
      const reference = (): JsonValue => (rng.int(0, 3) === 0 ? 5 : `$var_${rng.int(1, 13)}${rng.int(0, 3) === 0 ? '' : '.result'}$`);
      return { name: names[rng.int(0, names.length - 1)], label, arguments: { arg_0: reference(), arg_1: [reference(), reference()] } };
    });
    assert.deepEqual(groundCalls(randomCalls), officialGrounding(randomCalls), JSON.stringify(randomCalls));
  }
});

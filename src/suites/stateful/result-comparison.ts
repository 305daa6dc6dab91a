/**
 * How a test case's observed RESULT and end state are compared with the oracle's (seeds-reference 6.4): numbers
 * within a scenario tolerance (session 1e-4 absolute; tensor allclose with rtol = atol = 1e-2; voice 1e-6), objects
 * key by key, lists in order or, for voice, as multisets (each expected item matched exactly once).
 */
import type { JsonValue } from '../../core/json.ts';

export type Comparison = {
  numbersClose(expected: number, actual: number): boolean;
  listOrder: 'ordered' | 'unordered';
};

export const sessionComparison: Comparison = {
  numbersClose: (expected, actual) => Math.abs(expected - actual) <= 1e-4,
  listOrder: 'ordered',
};

/** torch.allclose(actual, expected, rtol=1e-2, atol=1e-2). */
export const tensorComparison: Comparison = {
  numbersClose: (expected, actual) => Math.abs(actual - expected) <= 1e-2 + 1e-2 * Math.abs(expected),
  listOrder: 'ordered',
};

export const voiceComparison: Comparison = {
  numbersClose: (expected, actual) => Math.abs(expected - actual) <= 1e-6,
  listOrder: 'unordered',
};

export function valuesMatch(expected: JsonValue | undefined, actual: JsonValue | undefined, comparison: Comparison): boolean {
  if (expected === undefined || actual === undefined) return expected === actual;
  if (typeof expected === 'number' && typeof actual === 'number') return comparison.numbersClose(expected, actual);
  if (expected === null || actual === null || typeof expected !== 'object' || typeof actual !== 'object') return expected === actual;
  if (Array.isArray(expected) !== Array.isArray(actual)) return false;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) return false;
    if (comparison.listOrder === 'ordered') return expected.every((item, index) => valuesMatch(item, actual[index], comparison));
    const unused = [...actual];
    for (const item of expected) {
      const index = unused.findIndex((candidate) => valuesMatch(item, candidate, comparison));
      if (index === -1) return false;
      unused.splice(index, 1);
    }
    return true;
  }
  const expectedObject = expected as Record<string, JsonValue>;
  const actualObject = actual as Record<string, JsonValue>;
  const keys = Object.keys(expectedObject);
  if (keys.length !== Object.keys(actualObject).length) return false;
  return keys.every((key) => key in actualObject && valuesMatch(expectedObject[key], actualObject[key], comparison));
}

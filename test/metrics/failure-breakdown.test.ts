import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failureCodes } from '../../src/core/failure.ts';
import { failureBreakdown } from '../../src/metrics/failure-breakdown.ts';

test('failureBreakdown counts failed scores by their main failure code, every code present', () => {
  const counts = failureBreakdown([
    { value: 1, passed: true, reason: 'ok' },
    { value: 0, passed: false, reason: 'bad json', failure: 'output.unparsable' },
    { value: 0, passed: false, reason: 'bad json', failure: 'output.unparsable' },
    { value: 0.5, passed: false, reason: 'wrong', failure: 'arguments.incorrect-value' },
    { value: 0, passed: false, reason: 'no code' },
  ]);
  assert.deepEqual(Object.keys(counts), [...failureCodes]);
  assert.equal(counts['output.unparsable'], 2);
  assert.equal(counts['arguments.incorrect-value'], 1);
  assert.equal(counts['result.wrong'], 1);
  assert.equal(counts['tool.unknown'], 0);
  assert.equal(Object.values(counts).reduce((sum, count) => sum + count, 0), 4);
});

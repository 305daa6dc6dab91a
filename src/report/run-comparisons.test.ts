import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EpisodeRecord } from '../core/episode.ts';
import type { RunReport } from './run-report.ts';
import { compareRuns, comparisonTable } from './run-comparisons.ts';

function report(runId: string, suite: string, passes: Record<string, boolean[]>, taskDigests?: Record<string, string>): RunReport {
  const episodes: EpisodeRecord[] = Object.entries(passes).flatMap(([taskId, trials]) => trials.map((passed, trial): EpisodeRecord => ({
    schemaVersion: 1, runId, taskId, model: 'm', mode: 'calls', trial, status: 'scored', termination: 'final-answer', messages: [],
    score: passed ? { value: 1, passed: true, reason: '' } : { value: 0, passed: false, reason: '', failure: 'result.wrong' },
    usage: { inputTokens: 0, outputTokens: 0 }, attempts: 1, startedAt: '', endedAt: '', durationMs: 0, error: null,
  })));
  return {
    summary: { runId, suite, model: 'm', mode: 'calls', tasks: 0, trials: 1, episodes: episodes.length, infrastructureErrors: 0, passRate: 0, passRateCI95: [0, 1], metrics: {}, failures: {}, tables: [] },
    startedAt: null, episodes, taskDigests,
  };
}

test('later runs of a suite are paired per task with its first run', () => {
  const baseline = report('r1', 's', { a: [true], b: [true], c: [false], d: [false] });
  const treatment = report('r2', 's', { a: [true], b: [false], c: [true], d: [true, false], e: [true] });
  const other = report('r3', 'other-suite', { a: [false] });
  const [comparison, ...rest] = compareRuns([baseline, other, treatment]);
  assert.equal(rest.length, 0, 'the other suite has nothing to pair with');
  assert.equal(comparison.baselineRunId, 'r1');
  assert.equal(comparison.runId, 'r2');
  // Per-task pass rates: baseline 1, 1, 0, 0; run 1, 0, 1, 0.5 (task d: one of two trials); e unpaired.
  assert.equal(comparison.comparison.pairs, 4);
  assert.equal(comparison.comparison.unpaired, 1);
  assert.equal(comparison.comparison.baselineMean, 0.5);
  assert.equal(comparison.comparison.treatmentMean, 0.625);
  assert.equal(comparison.comparison.meanDifference, 0.125);
  assert.deepEqual(comparison.comparison.signTest, { improved: 2, worsened: 1, ties: 1, pValue: 1 });
  const row = comparisonTable([comparison]).rows[0];
  assert.deepEqual(row.slice(3, 7), [4, '50.0%', '62.5%', '+12.5%']);
  assert.equal(row[8], '2 / 1 / 1');
});

test('tasks with the same id but different content (other knobs) are not paired', () => {
  const baseline = report('r1', 's', { a: [true], b: [true] }, { a: 'x1', b: 'y1' });
  const sameTasks = report('r2', 's', { a: [false], b: [true] }, { a: 'x1', b: 'y1' });
  const otherKnobs = report('r3', 's', { a: [false], b: [false] }, { a: 'x2', b: 'y2' });
  const comparisons = compareRuns([baseline, sameTasks, otherKnobs]);
  assert.deepEqual(comparisons.map((comparison) => [comparison.runId, comparison.comparison.pairs]), [['r2', 2]]);
});

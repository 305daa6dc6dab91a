import { test } from 'node:test';
import assert from 'node:assert/strict';
import { supersededNote, withoutSupersededRuns } from '../../src/report/superseded-runs.ts';
import type { StoredRun } from '../../src/store/stored-run.ts';
import { sampleRun } from '../runner/test-helpers.ts';

function run(id: string, rescoredFrom?: string): StoredRun {
  const stored = sampleRun(id);
  return { ...stored, provenance: { ...stored.provenance, ...(rescoredFrom ? { rescoredFrom } : {}) } } as StoredRun;
}

test('of each line of rescores present, only the newest is reported, in the order given', () => {
  // a <- a1 <- a2 (a rescore of a rescore); b <- b1 and b <- b2 (b rescored twice); c alone; d1 rescores a run not here.
  const runs = [run('a'), run('b'), run('c'), run('a1', 'a'), run('b1', 'b'), run('d1', 'd'), run('a2', 'a1'), run('b2', 'b')];
  const { runs: kept, superseded } = withoutSupersededRuns(runs);
  assert.deepEqual(kept.map((stored) => stored.id), ['c', 'd1', 'a2', 'b2']);
  assert.deepEqual(superseded, [{ runId: 'a', by: 'a2' }, { runId: 'b', by: 'b2' }, { runId: 'a1', by: 'a2' }, { runId: 'b1', by: 'b2' }]);
  assert.equal(supersededNote(superseded.slice(0, 1)), 'left out a run whose episodes a newer rescore reports: a (rescored as a2); name runs to report them side by side');
  assert.match(supersededNote(superseded) ?? '', /^left out 4 runs whose episodes/);
  assert.equal(supersededNote([]), undefined);
  // Nothing rescored: every run, untouched.
  assert.deepEqual(withoutSupersededRuns([run('x'), run('y')]).runs.map((stored) => stored.id), ['x', 'y']);
});

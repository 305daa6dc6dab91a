/**
 * The paired report under `drift:all` for funcgen and nestful (calls mode): the oracle flips nothing; old-schema gold
 * replayed on the drifted tasks flips exactly the tasks whose gold the drifted API refuses (computed from the change
 * log) and that the suite scores from the calls (nestful; funcgen scores the final answer alone), with the exact
 * McNemar p-value of those flips.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mcnemarExactPValue } from '../../src/metrics/mcnemar-test.ts';
import { pairTransformRuns } from '../../src/report/transform-pairs.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { applyTransforms, parseTransformRequest } from '../../src/transforms/registry.ts';
import { rejectedSources, replayFileWriter } from './paired-run-helpers.ts';

const replayFile = replayFileWriter('toolforge-paired-drift-');

for (const suiteId of ['funcgen', 'nestful']) {
  test(`${suiteId}: paired report under drift:all (oracle: no flips; old gold: flips from the change log, McNemar)`, async () => {
    const suite = getSuite(suiteId);
    const params = resolveKnobs(suite.id, suite.knobs, {});
    const baseline = await generateTasks(suite, { seed: 7, count: 5, params, validate: false });
    const drifted = applyTransforms(baseline, [parseTransformRequest('drift:all')], 7);
    const store = openResultsStore(':memory:');
    try {
      const base = await runEvaluation({ suite, tasks: baseline, modelRef: 'builtin/oracle', mode: 'calls', seed: 7, params, store, concurrency: 1 });
      const oracle = await runEvaluation({ suite, tasks: drifted, modelRef: 'builtin/oracle', mode: 'calls', seed: 7, params, store, concurrency: 1 });
      const oraclePairs = pairTransformRuns(store, base.runId, oracle.runId);
      assert.equal(oraclePairs.transforms, 'drift:op=all,probability=0.99');
      assert.deepEqual([oraclePairs.flips.pairs, oraclePairs.flips.passToFail, oraclePairs.flips.failToPass, oraclePairs.flips.mcnemarPValue], [5, [], [], 1]);

      const same = replayFile(store, base.runId, (id) => id, `${suiteId}-same.jsonl`);
      const moved = replayFile(store, base.runId, (id) => `${id}~drift`, `${suiteId}-moved.jsonl`);
      const replayBase = await runEvaluation({ suite, tasks: baseline, modelRef: `replay/${same}`, mode: 'calls', seed: 7, params, store, concurrency: 1 });
      const replayDrift = await runEvaluation({ suite, tasks: drifted, modelRef: `replay/${moved}`, mode: 'calls', seed: 7, params, store, concurrency: 1 });
      assert.equal(replayBase.passRate, 1);
      const refused = rejectedSources(store, base.runId, drifted);
      assert.ok(refused.length > 0, 'drift:all refuses some gold');
      const flipped = suiteId === 'nestful' ? refused : [];
      const pairs = pairTransformRuns(store, replayBase.runId, replayDrift.runId);
      assert.deepEqual(pairs.flips.passToFail, flipped);
      assert.deepEqual(pairs.flips.failToPass, []);
      assert.equal(pairs.flips.mcnemarPValue, mcnemarExactPValue(flipped.length, 0));
      assert.equal(pairs.treatment.passed, 5 - flipped.length);
      assert.ok(pairs.groups.some((group) => group.group === 'drift:endpoint'));
    } finally {
      store.close();
    }
  });
}

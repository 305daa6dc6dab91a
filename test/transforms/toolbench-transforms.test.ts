/**
 * The toolbench suite under schema drift and query perturbations (issue 12): the model is shown the old tools,
 * builtin/oracle (mapped onto the new schema) passes every task in calls and react mode, StableToolBench's Finish
 * protocol tool is never drifted, the drift is deterministic by seed with its change log stored with the run,
 * replayed old-schema gold is refused exactly where the change log says and fails exactly where the structural
 * rule says, and the paired report (flips, McNemar) under drift:all and each perturbation. With the public data
 * also a larger hand-checked pairing and the oracle over all 765 solvable queries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonicalJson } from '../../src/core/json.ts';
import type { Task, TransformRecord } from '../../src/core/task.ts';
import { mcnemarExactPValue } from '../../src/metrics/mcnemar-test.ts';
import { pairTransformRuns } from '../../src/report/transform-pairs.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { finishToolName } from '../../src/suites/toolbench/tool-exposure.ts';
import { toolbenchSuite } from '../../src/suites/toolbench/toolbench-suite.ts';
import { changedToolNames, driftOperatorIds } from '../../src/transforms/drift/index.ts';
import { applyTransforms, parseTransformRequest } from '../../src/transforms/registry.ts';
import { driftMapperOf, driftedToolsOf } from '../../src/transforms/schema-drift.ts';
import { fixturePath, requireData } from '../require-data.ts';
import { replayFileWriter } from './paired-run-helpers.ts';

const replayFile = replayFileWriter('toolforge-toolbench-transforms-');

const fixtureQueries = fixturePath('stabletoolbench', 'solvable_queries', 'test_instruction', 'G1_instruction.json');
const noData = requireData('stabletoolbench', 'solvable_queries', 'test_instruction');

const driftRecord = (task: Task): TransformRecord => task.origin?.transforms[0] as TransformRecord;

/**
 * From the change log alone, per source task: whether the drifted API refuses each of the baseline oracle's API
 * calls (Finish aside), in order.
 */
function servedGold(store: ResultsStore, baselineRunId: string, drifted: readonly Task[]): Map<string, boolean[]> {
  const served = new Map<string, boolean[]>();
  for (const episode of store.listEpisodes(baselineRunId)) {
    const task = drifted.find((candidate) => candidate.origin?.taskId === episode.taskId) as Task;
    const mapper = driftMapperOf(driftRecord(task));
    const calls = episode.calls.flatMap((call) => (call.type === 'tool' && call.arguments && call.name !== finishToolName ? [{ name: call.name, arguments: call.arguments }] : []));
    assert.ok(calls.length > 0, `${episode.taskId}: the oracle makes API calls`);
    served.set(episode.taskId, calls.map((call) => mapper.serve(call).ok));
  }
  return served;
}

/** The unjudged rule: at least one valid API call and none refused without a valid one after it. */
function structurallyFails(accepted: readonly boolean[]): boolean {
  const lastRefused = accepted.lastIndexOf(false);
  return !accepted.includes(true) || (lastRefused !== -1 && !accepted.slice(lastRefused + 1).includes(true));
}

async function fixtureTasks(seed: number, transforms: string[] = [], validate = false): Promise<Task[]> {
  const params = resolveKnobs('toolbench', toolbenchSuite.knobs, { data: fixtureQueries });
  return generateTasks(toolbenchSuite, { seed, count: undefined, params, validate, transforms: transforms.map((text) => parseTransformRequest(text)) });
}

describe('toolbench under drift', () => {
  test('the Finish protocol tool is never drifted: same name and schema under every operator', async () => {
    for (const op of driftOperatorIds) {
      for (const task of await fixtureTasks(4, [`drift:op=${op},probability=1`])) {
        const drifted = driftedToolsOf(driftRecord(task));
        const finish = drifted.tools.find((tool) => tool.name === finishToolName);
        assert.deepEqual(finish, task.tools.find((tool) => tool.name === finishToolName), `${op} ${task.id}`);
        assert.ok(!changedToolNames(drifted).includes(finishToolName), `${op} ${task.id}`);
      }
    }
  });

  for (const op of driftOperatorIds) {
    test(`drift:op=${op}: old schema shown, oracle 100% (calls, react), deterministic, change log stored; old gold refused and failed exactly as the log says`, async () => {
      const baseline = await fixtureTasks(4);
      const params = baseline[0].params;
      // generateTasks validates: builtin/oracle solves every drifted task through the enforcing environment.
      const drifted = await fixtureTasks(4, [`drift:op=${op}`], true);
      assert.equal(canonicalJson(drifted), canonicalJson(await fixtureTasks(4, [`drift:op=${op}`])), 'same seed, same bytes');
      drifted.forEach((task, index) => {
        assert.deepEqual(task.tools, baseline[index].tools, 'the model is shown the old schema');
        assert.deepEqual(task.expected, baseline[index].expected);
        assert.equal(driftedToolsOf(driftRecord(task)).log.length, task.tools.length);
      });
      const store = openResultsStore(':memory:');
      try {
        const base = await runEvaluation({ suite: toolbenchSuite, tasks: baseline, modelRef: 'builtin/oracle', mode: 'calls', seed: 4, params, store, concurrency: 1 });
        assert.equal(base.passRate, 1);
        for (const mode of ['calls', 'react'] as const) {
          const oracle = await runEvaluation({ suite: toolbenchSuite, tasks: drifted, modelRef: 'builtin/oracle', mode, seed: 4, params, store, concurrency: 1 });
          assert.equal(oracle.passRate, 1, `${op} ${mode}: ${JSON.stringify(oracle.failures)}`);
          assert.equal(oracle.metrics.validCallRate, 1, `${op} ${mode}`);
          // The change log is stored with the run: the stored tasks carry it byte for byte.
          assert.deepEqual(store.listTasks(oracle.runId).map((task) => task.origin), drifted.map((task) => task.origin));
        }

        const replay = replayFile(store, base.runId, (id) => `${id}~drift`, `toolbench-${op}.jsonl`);
        const replayed = await runEvaluation({ suite: toolbenchSuite, tasks: drifted, modelRef: `replay/${replay}`, mode: 'calls', seed: 4, params, store, concurrency: 1 });
        const served = servedGold(store, base.runId, drifted);
        const sourceOf = (taskId: string) => taskId.replace(/~drift$/, '');
        const episodes = store.listEpisodes(replayed.runId);
        const refused = episodes.filter((episode) => episode.calls.some((call) => call.type === 'tool' && !call.result.ok)).map((episode) => sourceOf(episode.taskId)).sort();
        const expectedRefused = [...served].filter(([, accepted]) => accepted.includes(false)).map(([id]) => id).sort();
        assert.deepEqual(refused, expectedRefused, `${op}: tasks with a refused call`);
        // Only tools the log says changed are refused.
        for (const task of drifted) {
          const changed = new Set(changedToolNames(driftedToolsOf(driftRecord(task))));
          const episode = episodes.find((candidate) => candidate.taskId === task.id);
          for (const call of episode?.calls ?? []) if (call.type === 'tool' && !call.result.ok) assert.ok(changed.has(call.name), `${op}: ${call.name} was refused but did not change`);
        }
        const failed = episodes.filter((episode) => !episode.score?.passed).map((episode) => sourceOf(episode.taskId)).sort();
        const expectedFailed = [...served].filter(([, accepted]) => structurallyFails(accepted)).map(([id]) => id).sort();
        assert.deepEqual(failed, expectedFailed, `${op}: failed tasks`);
        if (op === 'endpoint' || op === 'all') assert.deepEqual(failed, baseline.map((task) => task.id).sort(), `${op}: every gold chain calls a moved tool`);
      } finally {
        store.close();
      }
    });
  }

  test('drift:op=all paired report: the oracle flips nothing; replayed old gold flips every task pass -> fail (McNemar p = 0.125)', async () => {
    const baseline = await fixtureTasks(4);
    const drifted = await fixtureTasks(4, ['drift:op=all']);
    const params = baseline[0].params;
    const store = openResultsStore(':memory:');
    try {
      const base = await runEvaluation({ suite: toolbenchSuite, tasks: baseline, modelRef: 'builtin/oracle', mode: 'calls', seed: 4, params, store, concurrency: 1 });
      const oracle = await runEvaluation({ suite: toolbenchSuite, tasks: drifted, modelRef: 'builtin/oracle', mode: 'calls', seed: 4, params, store, concurrency: 1 });
      const oraclePairs = pairTransformRuns(store, base.runId, oracle.runId);
      assert.equal(oraclePairs.suite, 'toolbench');
      assert.equal(oraclePairs.transforms, 'drift:op=all,probability=0.99');
      assert.deepEqual([oraclePairs.flips.pairs, oraclePairs.flips.passToFail, oraclePairs.flips.failToPass, oraclePairs.flips.mcnemarPValue], [4, [], [], 1]);
      assert.deepEqual([oraclePairs.baseline.passRate, oraclePairs.treatment.passRate], [1, 1]);
      assert.ok(oraclePairs.groups.some((group) => group.group === 'drift:endpoint' && group.pairs === 4));

      const same = replayFile(store, base.runId, (id) => id, 'toolbench-same.jsonl');
      const moved = replayFile(store, base.runId, (id) => `${id}~drift`, 'toolbench-moved.jsonl');
      const replayBase = await runEvaluation({ suite: toolbenchSuite, tasks: baseline, modelRef: `replay/${same}`, mode: 'calls', seed: 4, params, store, concurrency: 1 });
      const replayDrift = await runEvaluation({ suite: toolbenchSuite, tasks: drifted, modelRef: `replay/${moved}`, mode: 'calls', seed: 4, params, store, concurrency: 1 });
      const pairs = pairTransformRuns(store, replayBase.runId, replayDrift.runId);
      assert.deepEqual(pairs.flips.passToFail, baseline.map((task) => task.id).sort());
      assert.deepEqual(pairs.flips.failToPass, []);
      assert.deepEqual([pairs.baseline.passRate, pairs.treatment.passRate], [1, 0]);
      assert.equal(pairs.flips.mcnemarPValue, mcnemarExactPValue(4, 0));
      assert.equal(pairs.flips.mcnemarPValue, 0.125);
    } finally {
      store.close();
    }
  });

  test('real queries, drift:op=endpoint,probability=0.4: pass -> fail exactly on the tasks whose gold calls a moved tool; hand-checked McNemar', { skip: noData }, async () => {
    const params = resolveKnobs('toolbench', toolbenchSuite.knobs, {});
    const all = await generateTasks(toolbenchSuite, { seed: 3, count: undefined, params, validate: false });
    const baseline = all.filter((_, index) => index % 50 === 0);
    const drifted = applyTransforms(baseline, [parseTransformRequest('drift:op=endpoint,probability=0.4')], 3);
    const store = openResultsStore(':memory:');
    try {
      const base = await runEvaluation({ suite: toolbenchSuite, tasks: baseline, modelRef: 'builtin/oracle', mode: 'calls', seed: 3, params, store, concurrency: 2 });
      const same = replayFile(store, base.runId, (id) => id, 'toolbench-real-same.jsonl');
      const moved = replayFile(store, base.runId, (id) => `${id}~drift`, 'toolbench-real-moved.jsonl');
      const replayBase = await runEvaluation({ suite: toolbenchSuite, tasks: baseline, modelRef: `replay/${same}`, mode: 'calls', seed: 3, params, store, concurrency: 2 });
      const replayDrift = await runEvaluation({ suite: toolbenchSuite, tasks: drifted, modelRef: `replay/${moved}`, mode: 'calls', seed: 3, params, store, concurrency: 2 });
      assert.equal(replayBase.passRate, 1);
      // From the change log: a gold call to a moved tool is refused (301); the task fails when no valid call follows it.
      const expectedFailed = [...servedGold(store, base.runId, drifted)].filter(([, accepted]) => structurallyFails(accepted)).map(([id]) => id).sort();
      const movedUsed = drifted.filter((task) => {
        const movedNames = new Set(driftedToolsOf(driftRecord(task)).log.filter((entry) => entry.to !== entry.from).map((entry) => entry.from));
        const episode = store.listEpisodes(base.runId).find((candidate) => candidate.taskId === task.origin?.taskId);
        return episode?.calls.some((call) => call.type === 'tool' && movedNames.has(call.name));
      }).map((task) => task.origin?.taskId as string).sort();
      assert.ok(expectedFailed.every((id) => movedUsed.includes(id)), 'only tasks that use a moved tool fail');
      assert.ok(expectedFailed.length > 0 && expectedFailed.length < baseline.length, `${expectedFailed.length} of ${baseline.length} fail: both sides of the pairing`);
      const pairs = pairTransformRuns(store, replayBase.runId, replayDrift.runId);
      assert.deepEqual(pairs.flips.passToFail, expectedFailed);
      assert.deepEqual(pairs.flips.failToPass, []);
      assert.equal(pairs.flips.pairs, baseline.length);
      assert.equal(pairs.flips.mcnemarPValue, Math.min(1, 2 * 0.5 ** expectedFailed.length));
      assert.equal(pairs.treatment.passed, baseline.length - expectedFailed.length);
    } finally {
      store.close();
    }
  });
});

describe('toolbench under query perturbations', () => {
  for (const kind of ['distractor', 'case-mix', 'punctuation']) {
    test(`perturb:kind=${kind}: the query only; oracle 100%; paired report with replayed gold has no flips`, async () => {
      const baseline = await fixtureTasks(2);
      const perturbed = await fixtureTasks(2, [`perturb:kind=${kind}`], true);
      const params = baseline[0].params;
      perturbed.forEach((task, index) => {
        const changes = task.origin?.transforms[0].changes as { from: string; to: string };
        assert.equal(changes.from, baseline[index].query);
        assert.equal(task.query, changes.to);
        assert.equal(task.prompt.at(-1)?.content, changes.to);
        assert.deepEqual(task.tools, baseline[index].tools);
        assert.deepEqual(task.expected, baseline[index].expected);
      });
      assert.ok(perturbed.some((task, index) => task.query !== baseline[index].query));
      const store = openResultsStore(':memory:');
      try {
        const base = await runEvaluation({ suite: toolbenchSuite, tasks: baseline, modelRef: 'builtin/oracle', mode: 'calls', seed: 2, params, store, concurrency: 1 });
        const oracle = await runEvaluation({ suite: toolbenchSuite, tasks: perturbed, modelRef: 'builtin/oracle', mode: 'calls', seed: 2, params, store, concurrency: 1 });
        assert.equal(oracle.passRate, 1);
        const replay = replayFile(store, base.runId, (id) => `${id}~perturb`, `toolbench-${kind}.jsonl`);
        const replayed = await runEvaluation({ suite: toolbenchSuite, tasks: perturbed, modelRef: `replay/${replay}`, mode: 'calls', seed: 2, params, store, concurrency: 1 });
        const pairs = pairTransformRuns(store, base.runId, replayed.runId);
        assert.deepEqual([pairs.flips.pairs, pairs.flips.passToFail, pairs.flips.failToPass, pairs.flips.mcnemarPValue], [4, [], [], 1]);
        assert.deepEqual(pairs.groups.map((group) => group.group), [`perturb:${kind}`]);
        assert.equal(pairs.transforms, `perturb:kind=${kind}`);
      } finally {
        store.close();
      }
    });
  }
});

test('builtin/oracle finishes every one of the 765 solvable queries with an answer (calls mode)', { skip: noData }, async () => {
  const params = resolveKnobs('toolbench', toolbenchSuite.knobs, {});
  const tasks = await generateTasks(toolbenchSuite, { seed: 1, count: undefined, params, validate: false });
  assert.equal(tasks.length, 765);
  const summary = await runEvaluation({ suite: toolbenchSuite, tasks, modelRef: 'builtin/oracle', mode: 'calls', seed: 1, params, store: openResultsStore(':memory:'), concurrency: 2 });
  assert.equal(summary.episodes, 765);
  assert.equal(summary.infrastructureErrors, 0);
  assert.equal(summary.metrics.finishedWithAnswer, 1);
  assert.equal(summary.passed, 765, JSON.stringify(summary.failures));
});

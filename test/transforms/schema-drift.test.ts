import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { canonicalJson } from '../../src/core/json.ts';
import type { Task } from '../../src/core/task.ts';
import { mcnemarExactPValue } from '../../src/metrics/mcnemar-test.ts';
import { wilsonInterval } from '../../src/metrics/wilson-interval.ts';
import { pairTransformRuns, transformPairsTable } from '../../src/report/transform-pairs.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { driftOperatorIds } from '../../src/transforms/drift/index.ts';
import { applyTransforms, checkTransformChain, parseTransformRequest } from '../../src/transforms/registry.ts';
import { driftMapperOf, driftedToolsOf } from '../../src/transforms/schema-drift.ts';
import { counterSuite } from '../fixtures/counter-suite.ts';
import { rejectedSources, replayFileWriter } from './paired-run-helpers.ts';

const replayFile = replayFileWriter('toolforge-drift-');

describe('transform drift', () => {
  test('a task already drifted is refused, in one chain or from a file of drifted tasks, with the fix', async () => {
    const suite = getSuite('nestful');
    const params = resolveKnobs(suite.id, suite.knobs, {});
    const [task] = await generateTasks(suite, { seed: 1, count: 1, params, validate: false });
    const refused = (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid'
      && /task 'nestful\/1\/0~drift' is already derived by transform drift, which applies once to a task/.test(error.message) && /fix: apply --transform drift once/.test(error.message);
    assert.throws(() => applyTransforms([task], [parseTransformRequest('drift'), parseTransformRequest('drift:op=type')], 1), refused);
    const [drifted] = applyTransforms([task], [parseTransformRequest('drift')], 1);
    assert.throws(() => applyTransforms([drifted], [parseTransformRequest('identity'), parseTransformRequest('drift')], 1), (error: unknown) => error instanceof ConfigError && /already derived by transform drift/.test(error.message));
    // The chain itself is refused before any task is made (run, generate and sweep call this on --transform).
    const chain = ['drift', 'rename-tools', 'drift:op=type'].map(parseTransformRequest);
    assert.throws(() => checkTransformChain(chain), (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid'
      && /transform drift is given twice in the chain \(1st and 3rd\), but it applies once to a task/.test(error.message) && /--transform drift:name=value/.test(error.fix ?? ''));
    // A transform that may apply again is not refused.
    checkTransformChain(['rename-tools', 'rename-tools', 'drift'].map(parseTransformRequest));
  });

  test('knobs: op is one of the operators, probability in [0, 1]; code tasks are refused with the modes named', async () => {
    assert.deepEqual(parseTransformRequest('drift').knobs, { op: 'all', probability: 0.99 });
    assert.equal(parseTransformRequest('drift:op=nest').knobs.op, 'nest');
    assert.throws(() => parseTransformRequest('drift:op=melt'), (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid-knob');
    assert.throws(() => parseTransformRequest('drift:probability=2'), (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid-knob');
    const [task] = await counterSuite.generate({ seed: 1, count: 1, params: { max: 60 } });
    assert.throws(() => applyTransforms([task], [parseTransformRequest('drift')], 1),
      (error: unknown) => error instanceof ConfigError && error.code === 'config.unsupported-mode' && /calls, react/.test(error.message));
  });

  for (const suiteId of ['funcgen', 'nestful']) {
    test(`${suiteId} (calls): every operator: old schema shown, oracle 100%, deterministic, old-schema gold fails exactly where serve() rejects it`, async () => {
      const suite = getSuite(suiteId);
      const params = resolveKnobs(suite.id, suite.knobs, {});
      const baseline = await generateTasks(suite, { seed: 5, count: 4, params, validate: false });
      const store = openResultsStore(':memory:');
      try {
        const base = await runEvaluation({ suite, tasks: baseline, modelRef: 'builtin/oracle', mode: 'calls', seed: 5, params, store, concurrency: 1 });
        assert.equal(base.passRate, 1);
        const changedOperators = new Set<string>();
        let rejectedSomewhere = 0;
        for (const op of driftOperatorIds) {
          const transforms = [parseTransformRequest(`drift:op=${op}`)];
          // generateTasks validates: builtin/oracle solves every drifted task through the enforcing environment.
          const drifted = await generateTasks(suite, { seed: 5, count: 4, params, transforms });
          assert.equal(canonicalJson(drifted), canonicalJson(await generateTasks(suite, { seed: 5, count: 4, params, transforms, validate: false })), `${op} is deterministic`);
          // The drift is drawn from the run's seed: another seed, another drift seed per task.
          const reseeded = applyTransforms(baseline, transforms, 6);
          reseeded.forEach((task, index) => assert.notEqual(task.origin?.transforms[0].changes.seed, drifted[index].origin?.transforms[0].changes.seed));
          drifted.forEach((task, index) => {
            assert.deepEqual(task.tools, baseline[index].tools, 'the model is shown the old schema');
            assert.deepEqual(task.expected, baseline[index].expected);
            const record = task.origin?.transforms[0];
            assert.equal(record?.id, 'drift');
            const changes = driftedToolsOf(record as NonNullable<typeof record>);
            assert.equal(changes.operator, op);
            assert.equal(changes.log.length, task.tools.length);
            for (const entry of changes.log) if (entry.changes.length > 0) changedOperators.add(op);
          });
          const oracle = await runEvaluation({ suite, tasks: drifted, modelRef: 'builtin/oracle', mode: 'calls', seed: 5, params, store, concurrency: 1 });
          assert.equal(oracle.passRate, 1, `${op}: ${JSON.stringify(oracle.failures)}`);

          const replay = replayFile(store, base.runId, (id) => `${id}~drift`, `${suiteId}-${op}.jsonl`);
          const replayed = await runEvaluation({ suite, tasks: drifted, modelRef: `replay/${replay}`, mode: 'calls', seed: 5, params, store, concurrency: 1 });
          const expectedRejected = rejectedSources(store, base.runId, drifted);
          rejectedSomewhere += expectedRejected.length;
          const episodes = store.listEpisodes(replayed.runId);
          const sourceOf = (taskId: string) => taskId.replace(/~drift$/, '');
          // Every call the drifted API refused got the strict server's answer (status and message) as a tool error.
          const refused = episodes.filter((episode) => episode.calls.some((call) => call.type === 'tool' && !call.result.ok)).map((episode) => sourceOf(episode.taskId)).sort();
          assert.deepEqual(refused, expectedRejected, `${op}: tasks with a refused call`);
          for (const episode of episodes) {
            const task = drifted.find((candidate) => candidate.id === episode.taskId) as Task;
            const mapper = driftMapperOf(task.origin?.transforms[0] as NonNullable<Task['origin']>['transforms'][number]);
            for (const call of episode.calls) {
              if (call.type !== 'tool' || call.result.ok || !call.arguments) continue;
              const served = mapper.serve({ name: call.name, arguments: call.arguments });
              if (served.ok) continue; // a later call that failed downstream of a refused one
              assert.deepEqual(call.result.error, { code: served.rejection.code, message: served.rejection.message });
              assert.match(call.result.error.message, /^(301|400|404) /);
            }
          }
          // nestful scores the executed calls: the replay fails exactly on those tasks. funcgen scores the final
          // answer alone, and the replayed answer is the right number whatever the calls returned.
          const failed = episodes.filter((episode) => !episode.score?.passed).map((episode) => sourceOf(episode.taskId)).sort();
          assert.deepEqual(failed, suiteId === 'nestful' ? expectedRejected : [], `${op}: failed tasks`);
        }
        assert.ok(changedOperators.has('all') && changedOperators.has('endpoint'), [...changedOperators].join(','));
        assert.ok(rejectedSomewhere > 0);
      } finally {
        store.close();
      }
    });
  }

  test('nestful, drift:op=endpoint,probability=0.4 with replayed old gold: hand-checked flips, Wilson intervals and McNemar p', async () => {
    const suite = getSuite('nestful');
    const params = resolveKnobs(suite.id, suite.knobs, {});
    const baseline = await generateTasks(suite, { seed: 10, count: 6, params, validate: false });
    const drifted = applyTransforms(baseline, [parseTransformRequest('drift:op=endpoint,probability=0.4')], 10);
    const store = openResultsStore(':memory:');
    try {
      const base = await runEvaluation({ suite, tasks: baseline, modelRef: 'builtin/oracle', mode: 'calls', seed: 10, params, store, concurrency: 1 });
      const same = replayFile(store, base.runId, (id) => id, 'nestful-same.jsonl');
      const moved = replayFile(store, base.runId, (id) => `${id}~drift`, 'nestful-moved.jsonl');
      const replayBase = await runEvaluation({ suite, tasks: baseline, modelRef: `replay/${same}`, mode: 'calls', seed: 10, params, store, concurrency: 1 });
      const replayDrift = await runEvaluation({ suite, tasks: drifted, modelRef: `replay/${moved}`, mode: 'calls', seed: 10, params, store, concurrency: 1 });
      assert.equal(replayBase.passRate, 1);
      // By hand from the change log: a task fails when one of its gold calls names a tool that moved.
      const movedTasks = drifted.filter((task) => {
        const log = driftedToolsOf(task.origin?.transforms[0] as NonNullable<Task['origin']>['transforms'][number]).log;
        const movedNames = new Set(log.filter((entry) => entry.to !== entry.from).map((entry) => entry.from));
        const episode = store.listEpisodes(base.runId).find((candidate) => candidate.taskId === task.origin?.taskId);
        return episode?.calls.some((call) => call.type === 'tool' && movedNames.has(call.name));
      }).map((task) => task.origin?.taskId as string).sort();
      assert.deepEqual(movedTasks, rejectedSources(store, base.runId, drifted));
      // With p = 0.4 some tasks keep all their tools and some do not: both sides of the pairing are exercised.
      assert.ok(movedTasks.length > 0 && movedTasks.length < 6, `moved: ${movedTasks.join(', ')}`);
      const pairs = pairTransformRuns(store, replayBase.runId, replayDrift.runId);
      const b = movedTasks.length;
      assert.deepEqual(pairs.flips.passToFail, movedTasks);
      assert.deepEqual(pairs.flips.failToPass, []);
      assert.equal(pairs.flips.pairs, 6);
      assert.equal(pairs.flips.mcnemarPValue, Math.min(1, 2 * 0.5 ** b));
      assert.equal(pairs.flips.mcnemarPValue, mcnemarExactPValue(b, 0));
      assert.deepEqual(pairs.baseline, { runId: replayBase.runId, passed: 6, tasks: 6, passRate: 1, ci95: wilsonInterval(6, 6) });
      assert.deepEqual(pairs.treatment, { runId: replayDrift.runId, passed: 6 - b, tasks: 6, passRate: (6 - b) / 6, ci95: wilsonInterval(6 - b, 6) });
      assert.equal(pairs.transforms, 'drift:op=endpoint,probability=0.4');
      // Per operator: the endpoint group holds the tasks with a moved tool (all of them fail), drift:none the others.
      const groups = Object.fromEntries(pairs.groups.map((group) => [group.group, group]));
      const endpointTasks = drifted.filter((task) => driftedToolsOf(task.origin?.transforms[0] as NonNullable<Task['origin']>['transforms'][number]).log.some((entry) => entry.changes.length > 0)).length;
      assert.equal(groups['drift:endpoint'].pairs, endpointTasks);
      assert.equal(groups['drift:endpoint'].passToFail.length, b);
      if (endpointTasks < 6) assert.equal(groups['drift:none'].drop, 0);
      const table = transformPairsTable([pairs]);
      assert.deepEqual(table.rows[0].slice(4), [6, '100.0% [61.0%, 100.0%]', `${((6 - b) / 6 * 100).toFixed(1)}% ${`[${(wilsonInterval(6 - b, 6)[0] * 100).toFixed(1)}%, ${(wilsonInterval(6 - b, 6)[1] * 100).toFixed(1)}%]`}`,
        `-${(b / 6 * 100).toFixed(1)}%`, b, 0, b === 1 ? '1' : String(Number((2 * 0.5 ** b).toFixed(4)))]);
    } finally {
      store.close();
    }
  });
});

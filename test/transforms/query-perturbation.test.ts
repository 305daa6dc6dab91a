import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { canonicalJson } from '../../src/core/json.ts';
import { pairTransformRuns } from '../../src/report/transform-pairs.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { perturbQuery } from '../../src/transforms/perturb/index.ts';
import { parseTransformRequest } from '../../src/transforms/registry.ts';
import { replayFileWriter } from './paired-run-helpers.ts';

const replayFile = replayFileWriter('toolforge-perturb-');

describe('transform perturb', () => {
  test('kind is a seeded perturbation or paraphrase; paraphrase without a model is refused with the fix', () => {
    assert.equal(parseTransformRequest('perturb').knobs.kind, 'distractor');
    assert.equal(parseTransformRequest('perturb:kind=case-mix').knobs.kind, 'case-mix');
    assert.equal(parseTransformRequest('perturb:paraphrase').knobs.kind, 'paraphrase');
    assert.throws(() => parseTransformRequest('perturb:kind=melt'), (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid-knob');
  });

  for (const suiteId of ['funcgen', 'nestful']) {
    for (const kind of ['distractor', 'case-mix', 'punctuation']) {
      test(`${suiteId}: perturb:kind=${kind} rewrites the query only; oracle 100%; deterministic; paired report with replayed gold has no flips`, async () => {
        const suite = getSuite(suiteId);
        const params = resolveKnobs(suite.id, suite.knobs, {});
        const transforms = [parseTransformRequest(`perturb:kind=${kind}`)];
        const baseline = await generateTasks(suite, { seed: 3, count: 3, params, validate: false });
        const perturbed = await generateTasks(suite, { seed: 3, count: 3, params, transforms });
        assert.equal(canonicalJson(perturbed), canonicalJson(await generateTasks(suite, { seed: 3, count: 3, params, transforms, validate: false })));
        perturbed.forEach((task, index) => {
          const source = baseline[index];
          const changes = task.origin?.transforms[0].changes as { seed: number; from: string; to: string };
          assert.equal(changes.from, source.query);
          const names = new Set([...source.tools.flatMap((tool) => [tool.name, ...Object.keys(tool.inputSchema.properties as object)]), ...(suite.verbatimNames?.(source) ?? [])]);
          assert.equal(changes.to, perturbQuery(kind as 'distractor', source.query as string, changes.seed, source.id, names));
          // The names the model must use exactly keep their case: every word of the query that names a tool or parameter,
          // or that the suite names (funcgen's variables: the target is in no parameter list).
          if (suiteId === 'funcgen') assert.ok(new RegExp(`\\b${(source.expected as { target: { variable: string } }).target.variable}\\b`).test(task.query as string), 'the target variable');
          for (const word of (source.query as string).match(/[A-Za-z_$][\w$]*/g) ?? []) if (names.has(word)) assert.ok(new RegExp(`\\b${word}\\b`).test(task.query as string), word);
          assert.equal(task.query, changes.to);
          // Punctuation noise may leave a query as it was (no draw hit); the story always changes it.
          if (kind === 'distractor') assert.notEqual(task.query, source.query, 'the query changed');
          assert.ok(task.prompt.some((message) => message.content.includes(changes.to)));
          assert.ok(!task.prompt.some((message) => message.content.includes(source.query as string)) || changes.to.includes(source.query as string));
          assert.deepEqual(task.tools, source.tools);
          assert.deepEqual(task.expected, source.expected);
          assert.deepEqual(task.modes, source.modes);
        });
        assert.ok(perturbed.some((task, index) => task.query !== baseline[index].query), 'some query changed');
        const store = openResultsStore(':memory:');
        try {
          const base = await runEvaluation({ suite, tasks: baseline, modelRef: 'builtin/oracle', mode: 'calls', seed: 3, params, store, concurrency: 1 });
          const oracle = await runEvaluation({ suite, tasks: perturbed, modelRef: 'builtin/oracle', mode: 'calls', seed: 3, params, store, concurrency: 1 });
          assert.equal(oracle.passRate, 1);
          // Gold replayed on the perturbed wording: the wording is all that changed, so nothing flips.
          const replay = replayFile(store, base.runId, (id) => `${id}~perturb`, `${suiteId}-${kind}.jsonl`);
          const replayed = await runEvaluation({ suite, tasks: perturbed, modelRef: `replay/${replay}`, mode: 'calls', seed: 3, params, store, concurrency: 1 });
          const pairs = pairTransformRuns(store, base.runId, replayed.runId);
          assert.equal(pairs.flips.pairs, 3);
          assert.deepEqual([pairs.flips.passToFail, pairs.flips.failToPass, pairs.flips.mcnemarPValue], [[], [], 1]);
          assert.deepEqual(pairs.groups.map((group) => group.group), [`perturb:${kind}`]);
          assert.equal(pairs.transforms, `perturb:kind=${kind}`);
        } finally {
          store.close();
        }
      });
    }
  }
});

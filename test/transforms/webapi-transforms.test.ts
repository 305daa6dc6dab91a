/**
 * webapi under the transforms (issue 12): each query perturbation rewrites the task text only (in the prompt's
 * starter code), the oracle still passes, and the paired report against the baseline (gold replayed on the
 * perturbed wording) has no flips and McNemar p = 1. Schema drift on webapi is tested in webapi-drift.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pairTransformRuns } from '../../src/report/transform-pairs.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { parseTransformRequest } from '../../src/transforms/registry.ts';
import { fixturePath } from '../require-data.ts';

const directory = mkdtempSync(join(tmpdir(), 'toolforge-webapi-transforms-'));
after(() => rmSync(directory, { recursive: true, force: true }));

const suite = getSuite('webapi');
// Tasks generated from the hand-written spec fixture (no public data needed); a roomy program time limit.
const params = resolveKnobs('webapi', suite.knobs, { spec: fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml'), executionTimeMs: '10000' });

function replayFile(store: ResultsStore, runId: string, keyOf: (taskId: string) => string, name: string): string {
  const lines = store.listEpisodes(runId).map((episode) => JSON.stringify({
    taskId: keyOf(episode.taskId),
    turns: episode.messages.flatMap((message) => (message.role === 'assistant' ? [{ content: message.content, toolCalls: [] }] : [])),
  }));
  const path = join(directory, name);
  writeFileSync(path, lines.join('\n'));
  return path;
}

describe('webapi under query perturbations', () => {
  for (const kind of ['distractor', 'case-mix', 'punctuation']) {
    test(`perturb:kind=${kind}: the task text only; oracle 100%; paired report with replayed gold: no flips, McNemar p = 1`, async () => {
      const baseline = await generateTasks(suite, { seed: 2, count: 4, params, validate: false });
      const perturbed = await generateTasks(suite, { seed: 2, count: 4, params, transforms: [parseTransformRequest(`perturb:kind=${kind}`)] });
      perturbed.forEach((task, index) => {
        const changes = task.origin?.transforms[0].changes as { from: string; to: string };
        assert.equal(changes.from, baseline[index].query);
        assert.equal(task.query, changes.to);
        assert.ok(task.prompt.some((message) => message.content.includes(changes.to)));
        assert.deepEqual(task.expected, baseline[index].expected);
      });
      assert.ok(perturbed.some((task, index) => task.query !== baseline[index].query));
      const store = openResultsStore(':memory:');
      try {
        const base = await runEvaluation({ suite, tasks: baseline, modelRef: 'builtin/oracle', seed: 2, params, store, concurrency: 1 });
        assert.equal(base.passRate, 1, JSON.stringify(base.failures));
        const oracle = await runEvaluation({ suite, tasks: perturbed, modelRef: 'builtin/oracle', seed: 2, params, store, concurrency: 1 });
        assert.equal(oracle.passRate, 1, JSON.stringify(oracle.failures));
        const replay = replayFile(store, base.runId, (id) => `${id}~perturb`, `webapi-${kind}.jsonl`);
        const replayed = await runEvaluation({ suite, tasks: perturbed, modelRef: `replay/${replay}`, seed: 2, params, store, concurrency: 1 });
        const pairs = pairTransformRuns(store, base.runId, replayed.runId);
        assert.equal(pairs.suite, 'webapi');
        assert.deepEqual([pairs.flips.pairs, pairs.flips.passToFail, pairs.flips.failToPass, pairs.flips.mcnemarPValue], [4, [], [], 1]);
        assert.deepEqual([pairs.baseline.passRate, pairs.treatment.passRate], [1, 1]);
        assert.deepEqual(pairs.groups.map((group) => group.group), [`perturb:${kind}`]);
      } finally {
        store.close();
      }
    });
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createModelSource } from '../../../src/models/registry.ts';
import { generateTasks } from '../../../src/runner/generate-tasks.ts';
import { runEpisode } from '../../../src/runner/run-episode.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import type { ScoredEpisode } from '../../../src/suites/spec.ts';
import { importNestfulSamples } from '../../../src/suites/nestful/import-samples.ts';
import { nestfulSuite } from '../../../src/suites/nestful/nestful-suite.ts';
import { scoreNestfulPredictions } from '../../../src/suites/nestful/score-predictions.ts';
import { fixturePath } from '../../require-data.ts';

test('replayed raw outputs (keyed by sample_id) score exactly like scoreNestfulPredictions', async () => {
  const samples = importNestfulSamples(fixturePath('nestful', 'samples.json'));
  const gold = JSON.parse(samples[0].outputJson) as unknown[];
  const outputs = [
    `\`\`\`json\n${JSON.stringify([...gold, { name: 'foo', label: '$var_5', arguments: {} }])}\n\`\`\``,
    'I think the answer is 75.',
    samples[2].outputJson,
  ];
  const directory = mkdtempSync(join(tmpdir(), 'nestful-replay-'));
  const path = join(directory, 'preds.jsonl');
  writeFileSync(path, samples.map((sample, index) => JSON.stringify({ taskId: sample.sampleId, output: outputs[index] })).join('\n'));

  const params = resolveKnobs('nestful', nestfulSuite.knobs, { data: fixturePath('nestful', 'samples.json') });
  const tasks = await generateTasks(nestfulSuite, { seed: 1, count: undefined, params, validate: false });
  const model = createModelSource(`replay/${path}`);
  const episodes: ScoredEpisode[] = [];
  for (const task of tasks) {
    const result = await runEpisode({ suite: nestfulSuite, task, trial: 0, mode: 'sequence', model });
    episodes.push({ task, trial: 0, score: result.score });
  }
  const viaRunner = nestfulSuite.summarize(episodes).metrics;
  const direct = scoreNestfulPredictions(samples, new Map(samples.map((sample, index) => [sample.sampleId, outputs[index]]))).metrics;
  for (const key of ['f1Function', 'f1Parameter', 'partialAccuracy', 'fullAccuracy', 'winRate', 'executableTasks'] as const) {
    assert.equal(viaRunner[key], direct[key], key);
  }
  assert.equal(direct.executableTasks, 2);
  assert.equal(direct.winRate, 0);
  assert.equal(direct.unparsable, 1);
  assert.deepEqual(episodes.map((episode) => episode.score.failure ?? 'passed'), ['tool.unknown', 'output.unparsable', 'passed']);
});

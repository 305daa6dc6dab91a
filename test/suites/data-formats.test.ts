/** The importers read each public data format, exercised on the hand-written fixtures (no public data needed). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { importNestfulSamples } from '../../src/suites/nestful/import-samples.ts';
import { scoreNestfulPredictions } from '../../src/suites/nestful/score-predictions.ts';
import { importWapiibenchFile } from '../../src/suites/webapi/wapiibench-data.ts';
import { fixturePath } from '../require-data.ts';

describe('NESTFUL formats', () => {
  test('v2 samples: ids, flavours, gold answers; gold sequences score 1 and the two math samples execute', () => {
    const samples = importNestfulSamples(fixturePath('nestful', 'samples.json'));
    assert.deepEqual(samples.map((sample) => [sample.sampleId, sample.flavour, sample.goldAnswerJson]), [
      ['fixture-math-1', 'math', '130.0'], ['fixture-math-2', 'math', '45'], ['fixture-code-1', 'code', '{"red": 2, "green": 1}'],
    ]);
    const { metrics } = scoreNestfulPredictions(samples, samples.map((sample) => sample.outputJson));
    assert.deepEqual([metrics.f1Function, metrics.f1Parameter, metrics.partialAccuracy, metrics.fullAccuracy, metrics.winRate, metrics.executableTasks], [1, 1, 1, 1, 1, 2]);
  });

  test('v1 release: id is file stem + index, tools come from the sibling spec file (arguments become parameters)', () => {
    const samples = importNestfulSamples(fixturePath('nestful', 'v1', 'fixture-data.json'));
    assert.deepEqual(samples.map((sample) => sample.sampleId), ['fixture-data/0', 'fixture-data/1']);
    assert.deepEqual(samples[0]!.tools.map((tool) => tool.name), ['Restaurants.Find', 'Restaurants.Book', 'Weather.Forecast']);
    assert.deepEqual(Object.keys(samples[0]!.tools[1]!.parameters), ['restaurant_id', 'party_size', 'time']);
    assert.equal(samples[0]!.flavour, 'v1');
    assert.equal(samples[0]!.goldAnswerJson, null);
  });
});

describe('WAPIIBench formats', () => {
  const spec = fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml');

  test('the combined list and the per-API file give the same samples, specs found by walking up to openapi/real_world_specs', () => {
    const combined = importWapiibenchFile(fixturePath('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json'));
    const perApi = importWapiibenchFile(fixturePath('wapiibench', 'data', 'synthetic', 'notes', 'test_data_corrected.json'));
    assert.equal(combined.length, 5);
    assert.deepEqual(perApi, combined);
    assert.deepEqual([combined[4]!.api, combined[4]!.index, combined[4]!.specPath], ['notes', 4, spec]);
    assert.deepEqual(combined[0]!.config.params, { limit: 20, tag: 'groceries' });
  });
});

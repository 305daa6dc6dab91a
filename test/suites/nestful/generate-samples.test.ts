import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/core/errors.ts';
import { canonicalJson } from '../../../src/core/json.ts';
import { Rng } from '../../../src/core/rng.ts';
import { analyzeCallGraph } from '../../../src/suites/nestful/call-graph.ts';
import { generateSample, generatorOperations } from '../../../src/suites/nestful/generate-samples.ts';
import { mathOperations } from '../../../src/suites/nestful/math-operations.ts';
import { checkExecutable } from '../../../src/suites/nestful/score-predictions.ts';

describe('generator', () => {
  test('same seed and knobs give identical bytes; another seed differs', () => {
    const knobs = { calls: 5, depth: 3, fanin: 2, distractors: 4 };
    const first = Array.from({ length: 20 }, (_, index) => canonicalJson(generateSample(42, index, knobs).sample));
    const again = Array.from({ length: 20 }, (_, index) => canonicalJson(generateSample(42, index, knobs).sample));
    const other = Array.from({ length: 20 }, (_, index) => canonicalJson(generateSample(43, index, knobs).sample));
    assert.deepEqual(first, again);
    assert.notDeepEqual(first, other);
  });

  test('1,000 generated gold sequences honour every knob and reproduce their gold answer', () => {
    const rng = new Rng(2024);
    for (let index = 0; index < 1000; index += 1) {
      const calls = rng.int(1, 9);
      const depth = rng.int(0, calls - 1);
      const fanin = rng.int(1, 2);
      const distractors = rng.int(0, 8);
      const { sample } = generateSample(7, index, { calls, depth, fanin, distractors });
      const output = JSON.parse(sample.outputJson);
      const stats = analyzeCallGraph(output);
      const where = `task ${index} (calls ${calls}, depth ${depth}, fanin ${fanin}, distractors ${distractors})`;
      assert.equal(stats.calls, calls, where);
      assert.equal(stats.depth, depth, where);
      assert.ok(stats.maxFanIn <= fanin, where);
      const goldNames = new Set<string>(output.map((call: { name: string }) => call.name));
      const offered = sample.tools.map((tool) => tool.name);
      assert.equal(new Set(offered).size, offered.length, where);
      assert.ok([...goldNames].every((name) => offered.includes(name)), where);
      assert.equal(offered.length - goldNames.size, Math.min(distractors, mathOperations.length - goldNames.size), where);
      // The last call ends the longest path, so the answer depends on the whole spine.
      assert.deepEqual(checkExecutable(sample), { executable: true }, where);
    }
  });

  test('the question is rendered from the DAG, references by letter', () => {
    const { sample, nodes } = generateSample(1, 0, { calls: 3, depth: 2, fanin: 1, distractors: 0 });
    assert.equal(nodes.length, 3);
    assert.match(sample.input, /^Let A be .+\. Let B be .*\bA\b.*\. What is .*\bB\b.*\?$/);
    assert.ok(generatorOperations.some((operation) => operation.name === 'add'));
  });

  test('impossible knobs are ConfigErrors with a fix', () => {
    assert.throws(() => generateSample(1, 0, { calls: 3, depth: 3, fanin: 2, distractors: 0 }),
      (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid-knob' && /depth/.test(error.message) && error.fix !== undefined);
  });
});

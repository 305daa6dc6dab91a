import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/core/errors.ts';
import { canonicalJson } from '../../../src/core/json.ts';
import type { Mode } from '../../../src/core/mode.ts';
import type { Task } from '../../../src/core/task.ts';
import type { Policy } from '../../../src/models/builtin/scripted-model.ts';
import { createScriptedModel } from '../../../src/models/builtin/scripted-model.ts';
import type { ModelSource } from '../../../src/models/spec.ts';
import { generateTasks } from '../../../src/runner/generate-tasks.ts';
import { resolveModelSource } from '../../../src/runner/resolve-model-source.ts';
import { runEpisode } from '../../../src/runner/run-episode.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import { getSuite } from '../../../src/suites/registry.ts';
import type { ScoredEpisode } from '../../../src/suites/spec.ts';
import { nestfulSuite } from '../../../src/suites/nestful/nestful-suite.ts';
import { fixturePath, requireData } from '../../require-data.ts';

const knobs = (raw: Record<string, string> = {}) => resolveKnobs('nestful', nestfulSuite.knobs, raw);

async function runAll(tasks: readonly Task[], model: ModelSource, mode: Mode): Promise<ScoredEpisode[]> {
  const episodes: ScoredEpisode[] = [];
  for (const task of tasks) {
    const result = await runEpisode({ suite: nestfulSuite, task, trial: 0, mode, model });
    episodes.push({ task, trial: 0, score: result.score });
  }
  return episodes;
}

function scripted(policy: Policy): ModelSource {
  return { ref: 'test/scripted', forEpisode: ({ mode }) => createScriptedModel({ modelId: 'scripted', mode, policy }) };
}

describe('nestful suite', () => {
  test('is registered', () => {
    assert.equal(getSuite('nestful'), nestfulSuite);
  });

  test('generated tasks are deterministic by seed and validated by the oracle', async () => {
    const first = await generateTasks(nestfulSuite, { seed: 11, count: 8, params: knobs() });
    const again = await generateTasks(nestfulSuite, { seed: 11, count: 8, params: knobs() });
    assert.equal(canonicalJson(first), canonicalJson(again));
    assert.equal(first[0].id, 'nestful/11/0');
    assert.deepEqual(first[0].modes, ['sequence', 'calls', 'react']);
  });

  for (const mode of ['sequence', 'calls', 'react'] as const) {
    test(`builtin/oracle wins every generated task in ${mode} mode; builtin/random wins at most 5%`, async () => {
      const tasks = await generateTasks(nestfulSuite, { seed: 5, count: 60, params: knobs({ calls: '5', depth: '3' }), validate: false });
      const oracle = nestfulSuite.summarize(await runAll(tasks, resolveModelSource(nestfulSuite, 'builtin/oracle'), mode));
      assert.equal(oracle.metrics.winRate, 1);
      assert.equal(oracle.metrics.executableTasks, 60);
      for (const key of ['f1Function', 'f1Parameter', 'partialAccuracy', 'fullAccuracy']) assert.equal(oracle.metrics[key], 1, key);
      const random = nestfulSuite.summarize(await runAll(tasks, resolveModelSource(nestfulSuite, 'builtin/random'), mode));
      assert.ok(random.metrics.winRate <= 0.05, `random win rate ${random.metrics.winRate}`);
    });
  }

  test('calls mode: a model passing "$var_N.result$" references wins and scores 1 on the sequence metrics', async () => {
    const tasks = await generateTasks(nestfulSuite, { seed: 9, count: 10, params: knobs({ calls: '4', depth: '2' }), validate: false });
    const episodes: ScoredEpisode[] = [];
    for (const task of tasks) {
      const gold = JSON.parse((task.expected as { outputJson: string }).outputJson) as { name: string; arguments: Record<string, never> }[];
      const policy: Policy = (state) => (state.turn < gold.length
        ? { type: 'calls', calls: [{ name: gold[state.turn].name, arguments: gold[state.turn].arguments }] }
        : { type: 'answer', text: 'done' });
      const result = await runEpisode({ suite: nestfulSuite, task, trial: 0, mode: 'calls', model: scripted(policy) });
      episodes.push({ task, trial: 0, score: result.score });
    }
    const { metrics } = nestfulSuite.summarize(episodes);
    for (const key of ['f1Function', 'f1Parameter', 'partialAccuracy', 'fullAccuracy', 'winRate']) assert.equal(metrics[key], 1, key);
  });

  test('imported data: every sample, or the first N; the oracle passes non-executable samples by full match', { skip: requireData('nestful') }, async () => {
    const all = await generateTasks(nestfulSuite, { seed: 1, count: undefined, params: knobs({ data: 'src/icl_examples.json' }) });
    assert.deepEqual(all.map((task) => task.id), [
      'nestful/ca3a8419-23fb-4e71-a0ba-cc799ad73dc2', 'nestful/08f01cce-bbc3-49c0-9e2a-b437de5444aa', 'nestful/738365f4-8f90-41b6-8b1c-5da4a8655f25']);
    assert.deepEqual(all[2].modes, ['sequence']);
    const summary = nestfulSuite.summarize(await runAll(all, resolveModelSource(nestfulSuite, 'builtin/oracle'), 'sequence'));
    assert.equal(summary.metrics.executableTasks, 2);
    for (const key of ['f1Function', 'f1Parameter', 'partialAccuracy', 'fullAccuracy', 'winRate']) assert.equal(summary.metrics[key], 1, key);
    assert.equal(summary.metrics['winRateByDepth.2'], 1);
    assert.ok(summary.tables.some((table) => table.title.startsWith('Win rate by nesting pattern')));
    const firstTwo = await generateTasks(nestfulSuite, { seed: 1, count: 2, params: knobs({ data: 'data_v1/non-executable/non-executable-sgd-data.json' }) });
    assert.deepEqual(firstTwo.map((task) => task.id), ['nestful/non-executable-sgd-data/0', 'nestful/non-executable-sgd-data/1']);
  });

  test('icl knob puts 0, 1 or 3 examples in the sequence prompt', { skip: requireData('nestful', 'src', 'icl_examples.json') }, async () => {
    const count = async (icl: string) => {
      const [task] = await generateTasks(nestfulSuite, { seed: 1, count: 1, params: knobs({ icl }), validate: false });
      return (task.prompt[0].content.match(/#Example-\d/g) ?? []).length;
    };
    assert.deepEqual([await count('0'), await count('1'), await count('3')], [0, 1, 3]);
  });

  test('every failure code is reached', async () => {
    const [task] = await generateTasks(nestfulSuite, { seed: 3, count: 1, params: knobs({ calls: '2', depth: '1' }), validate: false });
    const toolName = task.tools[0].name;
    const divide = task.tools.find((tool) => tool.name === 'divide');
    const cases: [Mode, Policy, string][] = [
      ['sequence', () => ({ type: 'text', text: 'Sorry, I cannot do that.' }), 'output.unparsable'],
      ['sequence', () => ({ type: 'text', text: '[{"name": "no_such_tool", "label": "$var_1", "arguments": {}}]' }), 'tool.unknown'],
      ['sequence', () => ({ type: 'text', text: `[{"name": "${toolName}", "label": "$var_1", "arguments": {"arg_0": "$var_9.result$", "arg_1": 1}}]` }), 'arguments.invalid'],
      ['calls', (state) => (state.turn === 0 ? { type: 'calls', calls: [{ name: toolName, arguments: { bogus: 1 } }] } : { type: 'answer', text: '?' }), 'arguments.invalid'],
      ['calls', (state) => (state.turn === 0 ? { type: 'calls', calls: [{ name: 'no_such_tool', arguments: {} }] } : { type: 'answer', text: '?' }), 'tool.unknown'],
      ['calls', () => ({ type: 'calls', calls: [{ name: 'no_such_tool', arguments: {} }] }), 'limit.exceeded'],
      ['calls', () => ({ type: 'answer', text: '42' }), 'result.wrong'],
      ['react', (state) => (state.turn === 0 ? { type: 'calls', calls: [{ name: toolName, arguments: { arg_0: 1, arg_1: 1 } }] } : { type: 'answer', text: '?' }), 'result.wrong'],
    ];
    if (divide) cases.push(['sequence', () => ({ type: 'text', text: '[{"name": "divide", "label": "$var_1", "arguments": {"arg_0": 1, "arg_1": 0}}]' }), 'execution.error']);
    for (const [mode, policy, failure] of cases) {
      const result = await runEpisode({ suite: nestfulSuite, task, trial: 0, mode, model: scripted(policy) });
      assert.equal(result.score.passed, false, failure);
      assert.equal(result.score.failure, failure, `${mode}: ${result.score.reason}`);
    }
    // execution.error through the sequence executor, on a sample known to offer divide.
    const [icl] = await generateTasks(nestfulSuite, { seed: 1, count: 1, params: knobs({ data: fixturePath('nestful', 'samples.json') }) });
    const zero = await runEpisode({ suite: nestfulSuite, task: icl, trial: 0, mode: 'sequence',
      model: scripted(() => ({ type: 'text', text: '[{"name": "divide", "label": "$var_1", "arguments": {"arg_0": 1, "arg_1": 0}}]' })) });
    assert.equal(zero.score.failure, 'execution.error');
  });

  test('phrasing=model uses the phrasing model, and needs one', async () => {
    await assert.rejects(generateTasks(nestfulSuite, { seed: 1, count: 1, params: knobs({ phrasing: 'model' }), validate: false }),
      (error: unknown) => error instanceof ConfigError && /phrasing/.test(error.message));
    // A rewrite that keeps every number of the question is used...
    const keeping = scripted(({ messages }) => { const last = messages.at(-1); return { type: 'text', text: `Word problem: ${last && 'content' in last ? last.content : ''}` }; });
    const [kept] = await generateTasks(nestfulSuite, { seed: 1, count: 1, params: knobs({ phrasing: 'model' }), phrasingModel: keeping, validate: false });
    assert.match(kept.prompt[1].content, /^Word problem: /);
    assert.equal(kept.stats.phrasing, 'model');
    // ...one that loses them falls back to the template question.
    const losing = scripted(() => ({ type: 'text', text: 'A shop sells 3 boxes...' }));
    const [fallback] = await generateTasks(nestfulSuite, { seed: 1, count: 1, params: knobs({ phrasing: 'model' }), phrasingModel: losing, validate: false });
    assert.equal(fallback.prompt[1].content, kept.prompt[1].content.replace(/^Word problem: /, ''));
    assert.equal(fallback.stats.phrasing, 'template-fallback');
  });

  test('bad knobs are ConfigErrors', async () => {
    await assert.rejects(generateTasks(nestfulSuite, { seed: 1, count: 1, params: knobs({ calls: '2', depth: '4' }), validate: false }),
      (error: unknown) => error instanceof ConfigError && /depth/.test(error.message));
    assert.throws(() => knobs({ icl: '2' }), ConfigError);
    await assert.rejects(generateTasks(nestfulSuite, { seed: 1, count: 1, params: knobs({ data: '/no/such/file.jsonl' }) }), ConfigError);
  });
});

test('an imported data file is read only as far as --count: a broken sample after it is never parsed', async () => {
  const { appendFileSync } = await import('node:fs');
  const { temporaryDirectory } = await import('../../e2e/run-cli.ts');
  const { writeNestfulData } = await import('../../runner/nestful-data.ts');
  const { data } = writeNestfulData(temporaryDirectory(), 3);
  appendFileSync(data, '{"sample_id": "broken", oops\n');
  const params = resolveKnobs(nestfulSuite.id, nestfulSuite.knobs, { data, icl: '0' });
  const tasks = await nestfulSuite.generate({ seed: 0, count: 3, params });
  assert.deepEqual(tasks.map((task) => task.id), ['nestful/s-0', 'nestful/s-1', 'nestful/s-2']);
  await assert.rejects(nestfulSuite.generate({ seed: 0, count: 4, params }), (error: unknown) => error instanceof ConfigError && /line 4: not JSON/.test(error.message));
});

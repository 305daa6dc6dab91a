import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { canonicalJson } from '../../src/core/json.ts';
import type { Task } from '../../src/core/task.ts';
import { compareWithFirstRuns } from '../../src/report/run-comparisons.ts';
import { compareRuns } from '../../src/runner/compare-runs.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { applyTransforms, parseTransformRequest } from '../../src/transforms/registry.ts';
import { counterSuite } from '../fixtures/counter-suite.ts';
import { fixturePath } from '../require-data.ts';

const directory = mkdtempSync(join(tmpdir(), 'toolforge-rename-'));
after(() => rmSync(directory, { recursive: true, force: true }));

/** The oracle's recorded turns of a run, as a replay file keyed by `keyOf(taskId)`. */
function oracleReplay(store: ResultsStore, runId: string, keyOf: (taskId: string) => string, name: string, withAnswer = true): string {
  const lines = store.listEpisodes(runId).map((episode) => JSON.stringify({
    taskId: keyOf(episode.taskId),
    turns: episode.messages.flatMap((message) => (message.role === 'assistant' ? [{
      // Without the answer: a model that only knows the gold calls must get its answer from them.
      content: withAnswer || message.toolCalls.length > 0 ? message.content : 'I could not compute it.',
      toolCalls: message.toolCalls.map((call) => ({ id: call.id, name: call.name, argumentsText: call.argumentsText })),
    }] : [])),
  }));
  const path = join(directory, name);
  writeFileSync(path, lines.join('\n'));
  return path;
}

describe('transform rename-tools', () => {
  test('parses id:k=v and rejects unknown transforms and knobs with ConfigErrors', () => {
    assert.equal(parseTransformRequest('rename-tools:style=suffix').knobs.style, 'suffix');
    assert.equal(parseTransformRequest('rename-tools').knobs.style, 'opaque');
    assert.throws(() => parseTransformRequest('no-such'), (error: unknown) => error instanceof ConfigError && /rename-tools/.test(error.message));
    assert.throws(() => parseTransformRequest('rename-tools:colour=red'), (error: unknown) => error instanceof ConfigError && error.code === 'config.unknown-knob');
    assert.throws(() => parseTransformRequest('rename-tools:style'), (error: unknown) => error instanceof ConfigError && /name=value/.test(error.message));
    // A knob given twice (the short form counts) is refused, as --set refuses it; the last one used to win.
    for (const [text, knob, fix] of [['rename-tools:style=opaque,style=suffix', 'style', 'give style once: --transform rename-tools:style=<value> (or --transform rename-tools:<value>)'],
      ['drift:nest,op=type', 'op', 'give op once: --transform drift:op=<value> (or --transform drift:<value>)'],
      ['drift:probability=0,probability=1', 'probability', 'give probability once: --transform drift:probability=<value>']]) {
      assert.throws(() => parseTransformRequest(text), (error: unknown) => error instanceof ConfigError && error.message.includes(`--transform ${text}: knob '${knob}' is given twice`) && error.fix === fix, text);
    }
  });

  test('a code task (scored from its program, not through tool calls) is refused, naming the modes', async () => {
    const [task] = await counterSuite.generate({ seed: 1, count: 1, params: { max: 60 } });
    assert.throws(() => applyTransforms([task], [parseTransformRequest('rename-tools')], 1),
      (error: unknown) => error instanceof ConfigError && error.code === 'config.unsupported-mode' && /calls, react/.test(error.message) && /fix:/.test(error.message));
  });

  for (const suiteId of ['funcgen', 'nestful']) {
    test(`${suiteId} (calls): every tool renamed, oracle 100%, old-name gold fails on every task, report pairs with the baseline`, async () => {
      const suite = getSuite(suiteId);
      const params = resolveKnobs(suite.id, suite.knobs, {});
      const transforms = [parseTransformRequest('rename-tools')];
      const baseline = await generateTasks(suite, { seed: 5, count: 4, params, validate: false });
      // Validation on: the oracle must solve every transformed task through the wrapped environment.
      const renamed = await generateTasks(suite, { seed: 5, count: 4, params, transforms });
      assert.equal(canonicalJson(renamed), canonicalJson(await generateTasks(suite, { seed: 5, count: 4, params, transforms, validate: false })));
      renamed.forEach((task: Task, index) => {
        const source = baseline[index];
        assert.equal(task.id, `${source.id}~rename-tools`);
        assert.equal(task.origin?.taskId, source.id);
        const map = task.origin?.transforms[0].changes.renamed as Record<string, string>;
        assert.deepEqual(Object.keys(map).sort(), source.tools.map((tool) => tool.name).sort());
        assert.deepEqual(task.tools.map((tool) => tool.name), source.tools.map((tool) => map[tool.name]));
        for (const tool of source.tools) {
          assert.notEqual(map[tool.name], tool.name);
          assert.ok(!task.prompt.some((message) => message.content.includes(`"${tool.name}"`)), `prompt still quotes ${tool.name}`);
        }
        assert.deepEqual(task.expected, source.expected);
      });
      assert.deepEqual(applyTransforms(baseline, [parseTransformRequest('identity')], 5).map((task) => task.tools), baseline.map((task) => task.tools));

      const store = openResultsStore(':memory:');
      try {
        const base = await runEvaluation({ suite, tasks: baseline, modelRef: 'builtin/oracle', mode: 'calls', seed: 5, params, store, concurrency: 1 });
        const oracle = await runEvaluation({ suite, tasks: renamed, modelRef: 'builtin/oracle', mode: 'calls', seed: 5, params, store, concurrency: 1 });
        assert.equal(base.passRate, 1);
        assert.equal(oracle.passRate, 1, JSON.stringify(oracle.failures));
        assert.deepEqual(store.getRun(oracle.runId).provenance.transforms, [{ id: 'rename-tools', version: '1', knobs: { style: 'opaque' } }]);

        // The baseline oracle's calls (old names) replayed: right on the baseline, wrong on every renamed task.
        // funcgen judges the final answer alone, so its replays leave the recorded answer out.
        const withAnswer = suiteId !== 'funcgen';
        const sameIds = oracleReplay(store, base.runId, (id) => id, `${suiteId}-old.jsonl`, withAnswer);
        const renamedIds = oracleReplay(store, base.runId, (id) => `${id}~rename-tools`, `${suiteId}-old-renamed.jsonl`, withAnswer);
        const replayBase = await runEvaluation({ suite, tasks: baseline, modelRef: `replay/${sameIds}`, mode: 'calls', seed: 5, params, store, concurrency: 1 });
        assert.equal(replayBase.passRate, withAnswer ? 1 : 0);
        const replayRenamed = await runEvaluation({ suite, tasks: renamed, modelRef: `replay/${renamedIds}`, mode: 'calls', seed: 5, params, store, concurrency: 1 });
        assert.equal(replayRenamed.passRate, 0);
        const episodes = store.listEpisodes(replayRenamed.runId);
        assert.equal(episodes.length, renamed.length);
        for (const episode of episodes) {
          const task = renamed.find((candidate) => candidate.id === episode.taskId) as Task;
          const oldNames = Object.keys(task.origin?.transforms[0].changes.renamed as Record<string, string>);
          const toolCalls = episode.calls.filter((call) => call.type === 'tool');
          assert.ok(toolCalls.length > 0);
          for (const call of toolCalls) {
            assert.ok(oldNames.includes(call.name), `${call.name} is an old name`);
            assert.equal(call.result.ok ? 'ok' : call.result.error.code, 'tool.unknown');
          }
        }

        // Pairing: by origin.taskId in compareRuns, by origin id and source digest in the report.
        const paired = compareRuns(store, base.runId, oracle.runId);
        assert.equal(paired.pairs, renamed.length);
        assert.equal(store.getRun(base.runId).suite.id, suiteId);
        const reported = compareWithFirstRuns(store, [base.runId, replayRenamed.runId]);
        assert.equal(reported.length, 1);
        assert.equal(reported[0].comparison.pairs, renamed.length);
        assert.equal(reported[0].comparison.baselineMean - reported[0].comparison.treatmentMean, 1);
      } finally {
        store.close();
      }
    });
  }

  // The oracle's text names tools only on a react Action line; anything else in it is data, kept as written (a voice
  // answer's history lists the tools it used by their real names). The react Finish is no tool's call.
  for (const [suiteId, mode, knobs] of [['funcgen', 'react', {}], ['nestful', 'react', {}], ['toolbench', 'react', { data: fixturePath('stabletoolbench', 'solvable_queries', 'test_instruction', 'G1_instruction.json') }],
    ['stateful', 'calls', { scenario: 'voice' }]] as const) {
    test(`${suiteId} (${mode}${'scenario' in knobs ? `, ${knobs.scenario}` : ''}): the oracle scores 100% on renamed tools`, async () => {
      const suite = getSuite(suiteId);
      const params = resolveKnobs(suite.id, suite.knobs, knobs as Record<string, string>);
      const renamed = await generateTasks(suite, { seed: 2, count: suiteId === 'stateful' ? 12 : 4, params, transforms: [parseTransformRequest('rename-tools:style=suffix')], validate: false });
      const store = openResultsStore(':memory:');
      try {
        const oracle = await runEvaluation({ suite, tasks: renamed, modelRef: 'builtin/oracle', mode, seed: 2, params, store, concurrency: 1 });
        assert.equal(oracle.passRate, 1, JSON.stringify(oracle.failures));
      } finally {
        store.close();
      }
    });
  }

  test('a call to a tool that never existed is told its own name only, not the real names behind the renamed ones', async () => {
    const suite = getSuite('funcgen');
    const params = resolveKnobs(suite.id, suite.knobs, {});
    const [task] = await generateTasks(suite, { seed: 2, count: 1, params, transforms: [parseTransformRequest('rename-tools')], validate: false });
    const replay = join(directory, 'unknown-tool.jsonl');
    writeFileSync(replay, `${JSON.stringify({ taskId: task.id, turns: [{ content: '', toolCalls: [{ id: 'c1', name: 'no_such_tool', argumentsText: '{}' }] }, { content: 'done' }] })}\n`);
    const store = openResultsStore(':memory:');
    try {
      const run = await runEvaluation({ suite, tasks: [task], modelRef: `replay/${replay}`, mode: 'calls', seed: 2, params, store, concurrency: 1 });
      const [episode] = store.listEpisodes(run.runId);
      const result = episode.messages.find((message) => message.role === 'tool');
      assert.deepEqual(result?.role === 'tool' ? result.result : undefined, { ok: false, error: { code: 'tool.unknown', message: "no tool named 'no_such_tool'" } });
    } finally {
      store.close();
    }
  });
});

/**
 * The registered suite end to end (generation -> code agent -> one run per test case -> scorer -> summary): the
 * reference program passes every task, a do-nothing program none, the program runs once per test case on a fresh
 * backend and each run is in the call record, model code reaches nothing but its scenario's backend, and the scorer
 * and summary give hand-computed values.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { CallRecord } from '../../../src/core/call-record.ts';
import type { JsonValue } from '../../../src/core/json.ts';
import type { ScoreInput } from '../../../src/core/score.ts';
import type { Task } from '../../../src/core/task.ts';
import { createScriptedModel } from '../../../src/models/builtin/scripted-model.ts';
import { createModelSource } from '../../../src/models/registry.ts';
import type { ModelSource } from '../../../src/models/spec.ts';
import { generateTasks } from '../../../src/runner/generate-tasks.ts';
import { runEpisode } from '../../../src/runner/run-episode.ts';
import { rescoreRun } from '../../../src/runner/rescore-run.ts';
import { runEvaluation } from '../../../src/runner/run-evaluation.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { openResultsStore } from '../../../src/store/results-store.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import type { ScoredEpisode } from '../../../src/suites/spec.ts';
import { statefulSuite } from '../../../src/suites/stateful/index.ts';
import type { StatefulScoreDetails } from '../../../src/suites/stateful/score-stateful.ts';
import { scenarioIds } from '../../../src/suites/stateful/stateful-backend.ts';
import type { StatefulEndState, StoredObservation } from '../../../src/suites/stateful/stateful-environment.ts';
import { readStatefulExpected } from '../../../src/suites/stateful/stateful-task.ts';

let sandbox: Sandbox;
before(() => {
  sandbox = createSandbox({ poolSize: 2 });
});
after(async () => {
  await sandbox.dispose();
});

function textModel(text: string): ModelSource {
  return { ref: 'test/scripted', forEpisode: (episode) => createScriptedModel({ modelId: 'scripted', mode: episode.mode, policy: () => ({ type: 'text', text }) }) };
}

async function generate(scenario: string, count: number, seed = 2): Promise<Task[]> {
  const params = resolveKnobs('stateful', statefulSuite.knobs, { scenario });
  return generateTasks(statefulSuite, { seed, count, params, validate: false });
}

for (const scenario of scenarioIds) {
  describe(`${scenario}: through the runner`, () => {
    let tasks: Task[];
    before(async () => {
      tasks = await generate(scenario, 4);
    });

    test('builtin/oracle passes 100% and builtin/random 0%, with the RQ4 metrics in the summary', async () => {
      const params = resolveKnobs('stateful', statefulSuite.knobs, { scenario });
      const store = openResultsStore(':memory:');
      try {
        const oracle = await runEvaluation({ suite: statefulSuite, tasks, modelRef: 'builtin/oracle', seed: 1, params, store, concurrency: 2 });
        assert.equal(oracle.passRate, 1, JSON.stringify(oracle.failures));
        assert.equal(oracle.metrics.passAt1, 1);
        const random = await runEvaluation({ suite: statefulSuite, tasks, modelRef: 'builtin/random', seed: 1, params, store, concurrency: 2 });
        assert.equal(random.infrastructureErrors, 0);
        assert.equal(random.passRate, 0);
        const errorRates = ['syntaxErrorRate', 'runtimeErrorRate', 'wrongResultRate', 'wrongStateRate'].map((name) => random.metrics[name]);
        assert.equal(errorRates.reduce((sum, rate) => sum + rate, 0), 1, 'every random failure has one RQ4 type');
      } finally {
        store.close();
      }
    });

    test('the program runs once per test case, each on a fresh backend, and every run is in the call record', async () => {
      const task = tasks.find((candidate) => readStatefulExpected(candidate).testCases.length === 2);
      assert.ok(task, 'seed 2 gives a branched task with two test cases');
      const expected = readStatefulExpected(task);
      const result = await runEpisode({ suite: statefulSuite, task, trial: 0, mode: 'code', model: textModel(`\`\`\`javascript\n${expected.program.body}\n\`\`\``), sandbox: () => sandbox });
      assert.equal(result.score.passed, true, result.score.reason);
      const program = result.calls.find((call): call is Extract<CallRecord, { type: 'program' }> => call.type === 'program');
      assert.ok(program?.variants);
      assert.deepEqual(program.variants.map((run) => run.result?.status), expected.testCases.map(() => 'completed'));
      assert.deepEqual(program.variants.map((run) => run.label), expected.testCases.map((testCase, index) => `test case ${index + 1} (${testCase.branch === 'none' ? 'no branch' : `${testCase.branch}-branch`})`));
      const observations = (result.finalState as unknown as StatefulEndState).testCases;
      assert.deepEqual(observations.map((observation) => observation?.state), expected.testCases.map((testCase) => testCase.expected.state));
    });

    test('a do-nothing program scores 0 (wrong result), an empty answer and a syntax error are unparsable', async () => {
      const [task] = tasks;
      const cases: [string, StatefulScoreDetails['outcome'], string][] = [
        ['```javascript\n// nothing to do\n```', 'wrong-result', 'result.wrong'],
        ['I cannot help with that.', 'syntax-error', 'output.unparsable'],
        ['```javascript\n```', 'no-program', 'output.unparsable'],
        ['```javascript\nthrow new Error("boom");\n```', 'runtime-error', 'execution.error'],
      ];
      for (const [answer, outcome, failure] of cases) {
        const result = await runEpisode({ suite: statefulSuite, task, trial: 0, mode: 'code', model: textModel(answer), sandbox: () => sandbox });
        assert.equal(result.score.passed, false, answer);
        assert.equal((result.score.details as StatefulScoreDetails).outcome, outcome, answer);
        assert.equal(result.score.failure, failure, answer);
      }
    });

    test('a RESULT that cannot be read as JSON (a BigInt) fails as a wrong result whose reason says why it reads as null', async () => {
      const [task] = tasks;
      const result = await runEpisode({ suite: statefulSuite, task, trial: 0, mode: 'code', model: textModel('```javascript\nRESULT = { big: 10n };\n```'), sandbox: () => sandbox });
      assert.equal((result.score.details as StatefulScoreDetails).outcome, 'wrong-result');
      assert.match(result.score.reason ?? '', /test case 1: RESULT reads as null because it cannot be turned into JSON \(TypeError: .*BigInt/i);
    });
  });
}

describe('containment through the runner', () => {
  let server: Server;
  let hits = 0;
  before(async () => {
    server = createServer((_, response) => { hits += 1; response.end('{"reached":true}'); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  for (const scenario of scenarioIds) {
    test(`${scenario}: model code reaches neither other hosts, other ports nor the file system`, async () => {
      const [task] = await generate(scenario, 1);
      const port = (server.address() as AddressInfo).port;
      const probe = `
const outcome = async (attempt) => { try { await attempt(); return 'reached'; } catch (error) { return 'blocked'; } };
RESULT = [
  await outcome(() => fetch('http://127.0.0.1:${port}/')),
  await outcome(() => axios.get('http://localhost:${port}/')),
  await outcome(() => fetch('https://example.com/')),
  await outcome(() => axios.get('http://localhost:8081/api/v1/sessions')),
  await outcome(async () => require('fs').readFileSync('/etc/passwd', 'utf8')),
  await outcome(async () => process.env.HOME.length),
];`;
      const result = await runEpisode({ suite: statefulSuite, task, trial: 0, mode: 'code', model: textModel(`\`\`\`javascript\n${probe}\n\`\`\``), sandbox: () => sandbox });
      const observations = (result.finalState as unknown as StatefulEndState).testCases;
      for (const observation of observations) {
        assert.equal(observation?.status, 'completed', JSON.stringify(observation));
        assert.deepEqual(observation.result, ['blocked', 'blocked', 'blocked', 'blocked', 'blocked', 'blocked']);
      }
      assert.equal(hits, 0, 'the server on 127.0.0.1 got no request');
      assert.equal(result.score.passed, false);
    });
  }
});

test('replay/: stored answers over two trials give pass@1 and pass@2; re-scoring the run gives the same figures without running anything', async () => {
  const tasks = await generate('voice', 2, 5);
  const directory = mkdtempSync(join(tmpdir(), 'stateful-replay-'));
  const file = join(directory, 'answers.jsonl');
  // Task 0: the reference, then a do-nothing program; task 1: a do-nothing program twice.
  const lines = [
    { taskId: tasks[0].id, trial: 0, output: `\`\`\`javascript\n${readStatefulExpected(tasks[0]).program.body}\n\`\`\`` },
    { taskId: tasks[0].id, trial: 1, output: '```javascript\n// nothing\n```' },
    { taskId: tasks[1].id, trial: 0, output: '```javascript\n// nothing\n```' },
    { taskId: tasks[1].id, trial: 1, output: 'no code at all' },
  ];
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  const params = resolveKnobs('stateful', statefulSuite.knobs, { scenario: 'voice' });
  const store = openResultsStore(':memory:');
  try {
    const run = await runEvaluation({ suite: statefulSuite, tasks, modelRef: `replay/${file}`, trials: 2, seed: 5, params, store, concurrency: 2 });
    assert.equal(run.infrastructureErrors, 0);
    assert.equal(run.metrics.passAt1, 0.25); // (1/2 + 0/2) / 2
    assert.equal(run.metrics.passAt2, 0.5); // (1 + 0) / 2
    assert.equal(run.metrics.wrongResultRate, 0.5);
    assert.equal(run.metrics.syntaxErrorRate, 0.25);
    let ranPrograms = 0;
    const counting = { ...statefulSuite, createEnvironment: async (task: Task, mode: 'code') => { ranPrograms += 1; return statefulSuite.createEnvironment(task, mode); } };
    const rescored = await rescoreRun({ runId: run.runId, store, suite: counting });
    assert.deepEqual(rescored.metrics, run.metrics);
    assert.equal(ranPrograms, 0, 're-scoring needs no environment');
  } finally {
    store.close();
  }
});

test('phrasing=model: the generator/evaluator agents phrase the instruction; programs the evaluator calls impossible are replaced', async () => {
  const calls: string[] = [];
  let reviews = 0;
  const phrasing: ModelSource = {
    ref: 'test/phrasing',
    forEpisode: (episode) => createScriptedModel({
      modelId: 'phrasing', mode: episode.mode,
      policy: (state) => {
        const system = state.messages[0];
        const reviewing = system?.role === 'system' && system.content.includes('senior technical lead');
        calls.push(reviewing ? 'evaluator' : 'generator');
        if (!reviewing) return { type: 'text', text: JSON.stringify({ user_variable_definitions: 'You have some preloaded values.', task_instructions: `Do the work of ${episode.task.id}.` }) };
        reviews += 1;
        return { type: 'text', text: JSON.stringify({ verdict: reviews === 1 ? 'impossible' : 'ok', diagnosis: 'test' }) };
      },
    }),
  };
  const params = resolveKnobs('stateful', statefulSuite.knobs, { scenario: 'session', phrasing: 'model' });
  const tasks = await statefulSuite.generate({ seed: 3, count: 2, params, phrasingModel: phrasing });
  assert.deepEqual(tasks.map((task) => task.id), ['stateful/session/3/1', 'stateful/session/3/2'], 'the first program was dropped and one more drawn');
  for (const task of tasks) {
    assert.equal(task.query, `You have some preloaded values.\n\nDo the work of ${task.id}/phrasing.`);
    assert.ok(task.prompt[0].content.includes(task.query ?? '-'));
    assert.equal(task.stats.phrasing, 'model');
  }
  assert.deepEqual(calls, ['generator', 'evaluator', 'generator', 'evaluator', 'generator', 'evaluator']);
  await assert.rejects(statefulSuite.generate({ seed: 3, count: 1, params }), /phrasing=model needs a model[\s\S]*fix:/);
});

describe('scorer and summary on hand-built inputs', () => {
  let task: Task;
  before(async () => {
    [task] = await generate('session', 1, 4);
  });

  function input(finalState: JsonValue, code: string | undefined, termination: ScoreInput['termination'] = 'final-answer'): ScoreInput {
    const calls: CallRecord[] = code === undefined ? [] : [{ type: 'program', extraction: { type: 'program', code }, result: null, attempts: 1, startMs: 0, durationMs: 0 }];
    return { task, messages: [], finalState, termination, calls, signal: new AbortController().signal, createEnvironment: () => Promise.reject(new Error('the scorer must not need one')) };
  }

  const observed = (overrides: Partial<StoredObservation>, index = 0): StoredObservation => {
    const testCase = readStatefulExpected(task).testCases[index];
    return { status: 'completed', result: testCase.expected.result as JsonValue, state: testCase.expected.state as JsonValue, ...overrides };
  };
  const allCases = (make: (index: number) => StoredObservation | null): JsonValue => ({ testCases: readStatefulExpected(task).testCases.map((_, index) => make(index)) }) as unknown as JsonValue;

  test('each verdict from the stored observations alone', async () => {
    const cases: [JsonValue, string | undefined, ScoreInput['termination'], StatefulScoreDetails['outcome']][] = [
      [allCases((index) => observed({}, index)), 'RESULT = 1;', 'final-answer', 'passed'],
      [allCases((index) => observed({ result: 'something else' }, index)), 'RESULT = 1;', 'final-answer', 'wrong-result'],
      [allCases((index) => observed({ state: { 'other||source': [{ a: 1 }] } }, index)), 'RESULT = 1;', 'final-answer', 'wrong-state'],
      [allCases((index) => observed({ status: 'timeout', result: null }, index)), 'while (true) {}', 'final-answer', 'runtime-error'],
      [allCases((index) => observed({}, index)), 'RESULT = (;', 'final-answer', 'syntax-error'],
      [allCases(() => null), 'RESULT = 1;', 'time-limit', 'not-run'],
      [{ testCases: [] }, undefined, 'time-limit', 'not-run'],
    ];
    for (const [finalState, code, termination, outcome] of cases) {
      const score = await statefulSuite.score({ ...input(finalState, code, termination), mode: 'code' });
      assert.equal((score.details as StatefulScoreDetails).outcome, outcome, `${outcome}: ${score.reason}`);
      assert.equal(score.passed, outcome === 'passed');
      assert.equal(score.value, outcome === 'passed' ? 1 : 0);
    }
  });

  test('pass@1, pass@2 and the error-type rates over trials, by hand', () => {
    // Task A: trials pass, fail (wrong-state); task B: fail (syntax), fail (runtime).
    const taskB: Task = { ...task, id: `${task.id}-b` };
    const episode = (target: Task, trial: number, outcome: StatefulScoreDetails['outcome']): ScoredEpisode => ({
      task: target, trial, score: { value: outcome === 'passed' ? 1 : 0, passed: outcome === 'passed', reason: '', details: { scenario: 'session', outcome, verdicts: [], program: '' } },
    });
    const summary = statefulSuite.summarize([episode(task, 0, 'passed'), episode(task, 1, 'wrong-state'), episode(taskB, 0, 'syntax-error'), episode(taskB, 1, 'runtime-error')]);
    assert.equal(summary.metrics.passAt1, 0.25); // (1/2 + 0/2) / 2
    assert.equal(summary.metrics.passAt2, 0.5); // (1 + 0) / 2
    assert.equal(summary.metrics.wrongStateRate, 0.25);
    assert.equal(summary.metrics.syntaxErrorRate, 0.25);
    assert.equal(summary.metrics.runtimeErrorRate, 0.25);
    assert.equal(summary.metrics.wrongResultRate, 0);
    const errorTable = summary.tables.find((table) => table.title.startsWith('Error types'));
    assert.deepEqual(errorTable?.rows.slice(0, 5), [['passed', 1, 0.25], ['syntax-error', 1, 0.25], ['runtime-error', 1, 0.25], ['wrong-result', 0, 0], ['wrong-state', 1, 0.25]]);
    const tableOne = summary.tables.find((table) => table.title.startsWith('Table I'));
    assert.equal(tableOne?.rows.length, 1);
    assert.equal(tableOne?.rows[0][0], 'session');
    assert.equal(tableOne?.rows[0][1], 2);
    assert.equal(tableOne?.rows[0][4], task.stats.functionCalls);
  });
});

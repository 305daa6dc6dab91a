import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/core/errors.ts';
import type { JsonObject } from '../../../src/core/json.ts';
import type { AssistantMessage } from '../../../src/core/message.ts';
import type { Score } from '../../../src/core/score.ts';
import type { Task } from '../../../src/core/task.ts';
import type { ToolResult } from '../../../src/core/tool.ts';
import { createToolCall } from '../../../src/core/tool.ts';
import { createScriptedModel } from '../../../src/models/builtin/scripted-model.ts';
import { wrongOutput } from '../../../src/suites/funcgen/environment.ts';
import { replayingModel, runFuncgenEpisode } from './episode-harness.ts';
import type { FuncgenDetails } from '../../../src/suites/funcgen/funcgen-details.ts';
import type { FuncgenFunction } from '../../../src/suites/funcgen/funcgen-task.ts';
import type { ScoredEpisode } from '../../../src/suites/spec.ts';
import { readFuncgenTask } from '../../../src/suites/funcgen/funcgen-task.ts';
import { funcgenSuite } from '../../../src/suites/funcgen/index.ts';
import { lastInteger } from '../../../src/suites/funcgen/scorer.ts';
import { generateFuncgenTask } from '../../../src/suites/funcgen/task-generator.ts';

let callNumber = 0;
const turn = (...calls: [string, string][]): AssistantMessage => ({
  role: 'assistant', content: '', toolCalls: calls.map(([name, text]) => createToolCall(`call_${(callNumber += 1)}`, name, text)),
});
const answer = (content: string): AssistantMessage => ({ role: 'assistant', content, toolCalls: [] });
const rightArguments = (fn: FuncgenFunction): JsonObject => Object.fromEntries(fn.parameters.map((parameter) => [parameter.name, parameter.value]));
const json = (value: unknown): string => JSON.stringify(value);

function fixture(restate = false) {
  const task = generateFuncgenTask({ seed: 31, index: 0, params: { core: 4, depth: 2, connected: 1, disconnected: 1, restate } });
  const { expected } = readFuncgenTask(task);
  const byName = new Map(expected.functions.map((fn) => [fn.name, fn]));
  const solution = expected.solution.map((name) => byName.get(name) as FuncgenFunction);
  const root = solution[0];
  const target = byName.get(expected.target.function) as FuncgenFunction;
  return { task, expected, solution, root, target };
}

describe('funcgen call classification and scoring', () => {
  test('every call fault, classified in the paper\'s order, with exact counts; the first fault is the failure', async () => {
    const { task, root, target } = fixture();
    // The root takes only prompt inputs: known variables, here with wrong values.
    assert.ok(root.parameters.every((parameter) => parameter.source.kind === 'input'));
    const knownButWrong = Object.fromEntries(root.parameters.map((parameter) => [parameter.name, parameter.value === 999 ? 998 : parameter.value + 1]));
    const model = replayingModel([
      turn(
        ['func_nope', '{}'],                                                                     // tool.unknown
        [target.name, '{}'],                                                                     // arguments.invalid (missing inputs)
        [target.name, '{"x": '],                                                                 // arguments.invalid (not JSON)
        [target.name, json({ ...rightArguments(target), extra: 1 })],                            // arguments.invalid (extra input)
        [target.name, json(Object.fromEntries(target.parameters.map((parameter) => [parameter.name, 1000])))], // value-not-yet-known (no producer has run)
      ),
      turn([root.name, json(rightArguments(root))], [root.name, json(knownButWrong)]),           // correct, incorrect-value
      answer('I believe the value is 5.'),
    ]);
    const { score, state, outcome } = await runFuncgenEpisode(task, 'calls', model);
    assert.equal(outcome.termination, 'final-answer');
    assert.deepEqual(state.calls.map((call) => call.classification), [
      'tool.unknown', 'arguments.invalid', 'arguments.invalid', 'arguments.invalid',
      'arguments.value-not-yet-known', 'correct', 'arguments.incorrect-value',
    ]);
    assert.equal(score.passed, false);
    assert.equal(score.value, 0);
    assert.equal(score.failure, 'tool.unknown');
    assert.deepEqual(score.failureCounts, {
      'tool.unknown': 1, 'arguments.invalid': 3, 'arguments.value-not-yet-known': 1, 'arguments.incorrect-value': 1,
    });
    assert.equal(score.details?.calls, 7);
    assert.equal(score.details?.correctCalls, 1);
    assert.equal(score.details?.answer, 5);
    // What the model was told: errors for 1-2, silent wrong values for 3-4, the right value for a right call.
    const results = outcome.messages.flatMap((message) => (message.role === 'tool' ? [message.result] : []));
    assert.deepEqual(results.slice(0, 4).map((result) => !result.ok && result.error.code),
      ['tool.unknown', 'arguments.invalid', 'arguments.invalid', 'arguments.invalid']);
    assert.deepEqual(results[5], { ok: true, output: { [root.output.name]: root.output.value } });
    const values = target.parameters.map(() => 1000);
    assert.deepEqual(results[4], { ok: true, output: { [target.output.name]: wrongOutput(readFuncgenTask(task).expected.wrongOutputSalt, target.name, values, target.output.value) } });
    assert.notEqual((results[4] as { output: JsonObject }).output[target.output.name], target.output.value);
  });

  test('clean calls and a wrong answer: result.wrong; no integer in the answer: result.wrong with answer null', async () => {
    const { task, solution, expected } = fixture();
    const calls = turn(...solution.map((fn) => [fn.name, json(rightArguments(fn))] as [string, string]));
    const wrong = await runFuncgenEpisode(task, 'calls', replayingModel([calls, answer(`It is ${expected.target.value + 1}`)]));
    assert.equal(wrong.score.failure, 'result.wrong');
    assert.deepEqual(wrong.score.failureCounts, {});
    assert.match(wrong.score.reason, /^answered \d+, but /);
    const none = await runFuncgenEpisode(task, 'calls', replayingModel([calls, answer('I do not know.')]));
    assert.equal(none.score.failure, 'result.wrong');
    assert.equal(none.score.details?.answer, null);
    const right = await runFuncgenEpisode(task, 'calls', replayingModel([calls, answer(`Steps 1, 2: the value is ${expected.target.value}`)]));
    assert.equal(right.score.passed, true);
    assert.equal(right.score.value, 1);
    assert.equal(right.score.failure, undefined);
  });

  test('a faulty call followed by the right answer still passes; its faults are counted', async () => {
    const { task, solution, expected } = fixture();
    const model = replayingModel([
      turn(['func_nope', '{}'], ...solution.map((fn) => [fn.name, json(rightArguments(fn))] as [string, string])),
      answer(String(expected.target.value)),
    ]);
    const { score } = await runFuncgenEpisode(task, 'calls', model);
    assert.equal(score.passed, true);
    assert.equal(score.failure, undefined);
    assert.deepEqual(score.failureCounts, { 'tool.unknown': 1 });
  });

  test('calls beyond 2x the minimum: limit.exceeded (even with call faults), calls logged up to the cap', async () => {
    const { task, root } = fixture();
    assert.equal(task.limits.maxToolCalls, 8);
    const many = turn(...Array.from({ length: 9 }, () => [root.name, json(rightArguments(root))] as [string, string]));
    const capped = await runFuncgenEpisode(task, 'calls', replayingModel([many, answer('1')]));
    assert.equal(capped.outcome.termination, 'max-tool-calls');
    assert.equal(capped.score.failure, 'limit.exceeded');
    assert.equal(capped.score.details?.calls, 8);
    assert.deepEqual(capped.score.failureCounts, {});
    const faulty = turn(...Array.from({ length: 9 }, () => ['func_nope', '{}'] as [string, string]));
    const cappedFaulty = await runFuncgenEpisode(task, 'calls', replayingModel([faulty]));
    assert.equal(cappedFaulty.score.failure, 'limit.exceeded');
    assert.deepEqual(cappedFaulty.score.failureCounts, { 'tool.unknown': 8 });
  });

  test('react: three unreadable outputs are output.unparsable; a non-JSON Action Input is arguments.invalid', async () => {
    const { task, root, expected } = fixture();
    const garbage = await runFuncgenEpisode(task, 'react', replayingModel([answer('let me think'), answer('hmm'), answer('the answer is unclear')]));
    assert.equal(garbage.outcome.termination, 'output-unparsable');
    assert.equal(garbage.score.failure, 'output.unparsable');
    assert.equal(garbage.score.details?.calls, 0);
    const badInput = await runFuncgenEpisode(task, 'react', replayingModel([
      answer(`Thought: try\nAction: ${root.name}\nAction Input: ${root.parameters[0].name}=1`),
      answer(`Thought: done\nAction: Finish\nAction Input: {"answer": "${expected.target.value + 1}"}`),
    ]));
    assert.equal(badInput.outcome.termination, 'final-answer');
    assert.deepEqual(badInput.score.failureCounts, { 'arguments.invalid': 1 });
    assert.equal(badInput.score.failure, 'arguments.invalid');
  });

  test('restate=true: every result also lists all values seen so far (latest per variable, wrong ones included)', async () => {
    const { task, root, expected } = fixture(true);
    const wrongArguments = Object.fromEntries(root.parameters.map((parameter) => [parameter.name, expected.inputs[0].value]));
    const wrongValue = wrongOutput(expected.wrongOutputSalt, root.name, root.parameters.map(() => expected.inputs[0].value), root.output.value);
    assert.notDeepEqual(wrongArguments, rightArguments(root));
    const { outcome } = await runFuncgenEpisode(task, 'calls', replayingModel([
      turn([root.name, json(rightArguments(root))], [root.name, json(wrongArguments)], ['func_nope', '{}']),
      answer('0'),
    ]));
    const results = outcome.messages.flatMap((message) => (message.role === 'tool' ? [message.result] : []));
    const inputs = Object.fromEntries(expected.inputs.map((input) => [input.name, input.value]));
    assert.deepEqual(results[0], { ok: true, output: { [root.output.name]: root.output.value, known_values: { ...inputs, [root.output.name]: root.output.value } } });
    assert.deepEqual(results[1], { ok: true, output: { [root.output.name]: wrongValue, known_values: { ...inputs, [root.output.name]: wrongValue } } });
    assert.equal(results[2].ok, false);
    // Without restate, only the output.
    const plain = fixture(false);
    const { outcome: plainOutcome } = await runFuncgenEpisode(plain.task, 'calls', replayingModel([turn([plain.root.name, json(rightArguments(plain.root))]), answer('0')]));
    const plainResult = plainOutcome.messages.find((message) => message.role === 'tool');
    assert.deepEqual(plainResult?.role === 'tool' && plainResult.result, { ok: true, output: { [plain.root.output.name]: plain.root.output.value } } satisfies ToolResult);
  });

  test('wrong outputs are a deterministic 3-digit function of the inputs, never the right value', async () => {
    for (let value = 0; value < 2000; value += 1) {
      const output = wrongOutput(7, 'func_abc', [value, 3], 500);
      assert.ok(output >= 100 && output <= 999 && output !== 500);
      assert.equal(wrongOutput(7, 'func_abc', [value, 3], 500), output);
    }
    const { task, root } = fixture();
    const args = json(Object.fromEntries(root.parameters.map((parameter) => [parameter.name, 123])));
    const first = await runFuncgenEpisode(task, 'calls', replayingModel([turn([root.name, args]), answer('0')]));
    const second = await runFuncgenEpisode(task, 'calls', replayingModel([turn([root.name, args]), answer('0')]));
    assert.equal(first.state.calls[0].output, second.state.calls[0].output);
  });

  test('scripted policy model drives the same environment (oracle calls, then a wrong answer)', async () => {
    const { task, solution, expected } = fixture();
    const model = createScriptedModel({
      modelId: 'scripted', mode: 'calls',
      policy: (state) => (state.history.length === 0
        ? { type: 'calls', calls: solution.map((fn) => ({ name: fn.name, arguments: rightArguments(fn) })) }
        : { type: 'answer', text: `${expected.target.value - 1}` }),
    });
    const { score } = await runFuncgenEpisode(task, 'calls', model);
    assert.equal(score.failure, 'result.wrong');
  });

  test('lastInteger reads the last integer of the answer', () => {
    assert.equal(lastInteger('The value of abcd is 731.'), 731);
    assert.equal(lastInteger('from 12 and 40 we get -5'), -5);
    assert.equal(lastInteger('no idea'), null);
  });

  test('unsupported modes are refused with a ConfigError', async () => {
    const { task } = fixture();
    await assert.rejects(funcgenSuite.createEnvironment(task, 'code'), (error: unknown) => error instanceof ConfigError && error.code === 'config.unsupported-mode');
  });

  test('a task with a damaged expected is refused, naming the field', async () => {
    const { task } = fixture();
    const damaged: Task = { ...task, expected: { ...(task.expected as JsonObject), solution: 'none' } };
    await assert.rejects(funcgenSuite.createEnvironment(damaged, 'calls'), /invalid expected\.solution/);
  });
});

describe('funcgen summary', () => {
  // The summary reads only the details and failure counts; the task is any funcgen task.
  const task = generateFuncgenTask({ seed: 1, index: 0, params: { core: 5, depth: 2, connected: 0, disconnected: 0, restate: false } });
  const episode = (passed: boolean, calls: number, core: number, depth: number, failureCounts: Score['failureCounts'],
    irrelevant: { connected: number; disconnected: number; restate?: boolean } = { connected: 5, disconnected: 5 }): ScoredEpisode => ({
    task,
    trial: 0,
    score: {
      value: passed ? 1 : 0, passed, reason: '', failureCounts,
      details: {
        calls, correctCalls: 0, irrelevantCalls: 0, minCalls: core, maxCalls: 2 * core, answer: null, targetValue: 0,
        core, depth, connected: irrelevant.connected, disconnected: irrelevant.disconnected, restate: irrelevant.restate ?? false, termination: 'final-answer',
      } satisfies FuncgenDetails,
    },
  });

  test('hand-computed metrics and paper tables', () => {
    const summary = funcgenSuite.summarize([
      episode(true, 5, 5, 2, {}),
      episode(false, 8, 5, 4, { 'arguments.value-not-yet-known': 3, 'arguments.incorrect-value': 1 }),
      episode(false, 2, 10, 3, { 'tool.unknown': 1 }),
      episode(true, 11, 10, 3, {}),
    ]);
    assert.deepEqual(summary.metrics, {
      episodes: 4,
      callErrors: 5,
      successRate: 0.5,
      avgCallsSuccess: 8,
      avgCallsFailure: 5,
      shareToolUnknown: 0.2,
      shareArgumentsInvalid: 0,
      shareValueNotYetKnown: 0.6,
      shareIncorrectValue: 0.2,
    });
    assert.deepEqual(summary.tables[0].rows, [
      ['5', 2, '50.0%', '5.0', '8.0'],
      ['10', 2, '50.0%', '11.0', '2.0'],
      ['all', 4, '50.0%', '8.0', '5.0'],
    ]);
    assert.deepEqual(summary.tables[1].rows, [
      ['Function Not Found', '20.0%', 1],
      ['Wrong Number of Inputs', '0.0%', 0],
      ['Value Not Yet Known', '60.0%', 3],
      ['Incorrect Value', '20.0%', 1],
      ['Total errors', null, 5],
    ]);
    assert.deepEqual(summary.tables.map((table) => table.title), [
      'Success rate and average calls (ACs) by core nodes (paper Table 2)',
      'Failure types of calls (paper Table 3)',
      'Success rate by irrelevant-function kind (paper Figure 4)',
      'Success rate by dependency depth (paper Figure 5)',
      'Failure types of calls by dependency depth',
      'Success rate without and with restated variable values (paper Figure 8)',
    ]);
    assert.deepEqual(summary.tables[3].rows, [[5, 2, 1, '100.0%'], [5, 4, 1, '0.0%'], [10, 3, 2, '50.0%']]);
  });

  test('hand-computed Figure 4 (irrelevant-function kind), failure types by depth, and Figure 8 (restate)', () => {
    const summary = funcgenSuite.summarize([
      episode(true, 5, 5, 1, {}, { connected: 0, disconnected: 0 }),                                              // No Extra
      episode(false, 9, 5, 1, { 'arguments.value-not-yet-known': 2 }, { connected: 10, disconnected: 0 }),        // Connected
      episode(false, 7, 5, 2, { 'arguments.incorrect-value': 1, 'tool.unknown': 1 }, { connected: 20, disconnected: 0 }), // Connected
      episode(true, 6, 5, 2, { 'arguments.value-not-yet-known': 1 }, { connected: 5, disconnected: 5 }),          // Half & Half
      episode(true, 5, 5, 2, {}, { connected: 0, disconnected: 40 }),                                             // Disconnected
      episode(false, 10, 5, 2, { 'arguments.invalid': 1, 'arguments.value-not-yet-known': 3 }, { connected: 0, disconnected: 10 }), // Disconnected
      episode(true, 5, 5, 1, {}, { connected: 3, disconnected: 7, restate: true }),                               // Mixed, restated
    ]);
    const table = (title: string) => summary.tables.find((candidate) => candidate.title.startsWith(title));
    // Figure 4: 1/1, 0/2, 1/1, 1/1, 1/2, in the paper's order with an unequal split on its own.
    assert.deepEqual(table('Success rate by irrelevant-function kind')?.rows, [
      ['No Extra', 1, '100.0%'], ['Connected', 2, '0.0%'], ['Half & Half', 1, '100.0%'], ['Mixed', 1, '100.0%'], ['Disconnected', 2, '50.0%'],
    ]);
    // Depth 1: 2 not-yet-known of 2 errors. Depth 2: 1 not found, 1 invalid, 1 + 3 not yet known, 1 incorrect = 7 errors.
    assert.deepEqual(table('Failure types of calls by dependency depth')?.rows, [
      [5, 1, '0.0%', '0.0%', '100.0%', '0.0%', 2],
      [5, 2, '14.3%', '14.3%', '57.1%', '14.3%', 7],
    ]);
    // Figure 8: baseline 3/6 pass, restated 1/1.
    assert.deepEqual(table('Success rate without and with restated')?.rows, [['baseline', 6, '50.0%'], ['restated (mitigation)', 1, '100.0%']]);
  });

  test('no successes: no avgCallsSuccess and an empty cell, as the paper\'s "—"', () => {
    const summary = funcgenSuite.summarize([episode(false, 3, 5, 1, {})]);
    assert.equal(summary.metrics.avgCallsSuccess, undefined);
    assert.equal(summary.metrics.successRate, 0);
    assert.equal(summary.metrics.shareValueNotYetKnown, undefined);
    assert.deepEqual(summary.tables[0].rows[0], ['5', 1, '0.0%', null, '3.0']);
  });
});

describe('funcgen final state as read by the scorer', () => {
  const input = (finalState: unknown) => {
    const { task } = fixture();
    return {
      task, messages: [answer('no idea')], finalState: finalState as JsonObject, termination: 'final-answer' as const, mode: 'calls' as const, calls: [],
      signal: new AbortController().signal, createEnvironment: () => { throw new Error('not used'); },
    };
  };
  const call = { name: 'func_a', argumentsText: '{}', classification: 'arguments.invalid', role: null, output: null };

  test('a state the environment makes is scored (its calls counted)', async () => {
    const score = await funcgenSuite.score(input({ calls: [call, { ...call, classification: 'correct', role: 'core', output: 12 }], knownValues: { x: 1 } }));
    assert.equal(score.passed, false);
    assert.equal(score.failure, 'arguments.invalid');
    assert.deepEqual([(score.details as FuncgenDetails).calls, (score.details as FuncgenDetails).correctCalls], [2, 1]);
  });

  for (const [what, state, field] of [
    ['an unknown classification', { calls: [{ ...call, classification: 'typo' }], knownValues: {} }, 'classification'],
    ['a role outside core/connected/disconnected', { calls: [{ ...call, role: 'side' }], knownValues: {} }, 'role'],
    ['a non-finite output', { calls: [{ ...call, output: Number.POSITIVE_INFINITY }], knownValues: {} }, 'output'],
    ['a known value that is text', { calls: [], knownValues: { x: '1' } }, 'knownValues'],
    ['no calls list', { knownValues: {} }, 'calls'],
  ] as const) {
    test(`${what} is refused with the field named, as the schema says`, async () => {
      await assert.rejects(() => funcgenSuite.score(input(state)), (error: Error) => error.message.includes(field));
    });
  }
});

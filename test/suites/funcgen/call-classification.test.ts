import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../../src/core/json.ts';
import type { AssistantMessage } from '../../../src/core/message.ts';
import type { Task } from '../../../src/core/task.ts';
import { createToolCall } from '../../../src/core/tool.ts';
import { wrongOutput } from '../../../src/suites/funcgen/environment.ts';
import { replayingModel, runBuiltinEpisode, runFuncgenEpisode } from './episode-harness.ts';
import { funcgenSuite } from '../../../src/suites/funcgen/index.ts';
import type { FuncgenExpected, FuncgenFunction, FuncgenVariable } from '../../../src/suites/funcgen/funcgen-task.ts';
import { funcgenPrompt } from '../../../src/suites/funcgen/prompt.ts';
import { funcgenToolSpec, generateFuncgenTask } from '../../../src/suites/funcgen/task-generator.ts';

/**
 * A hand-built task, small enough to classify every call by hand:
 *
 *   alpha=111 -> func_one -> xray=301 --(pone)--> func_tgt -> zulu=503 (target)
 *   beta=222  -> func_two -> yank=402 --(ptwo)--/
 *                func_one --(qone)--> func_cin -> cinv=604   (connected, irrelevant)
 *   gamma=333 -> func_din -> dinv=705                       (disconnected, irrelevant)
 */
const variable = (name: string, type: string, value: number): FuncgenVariable => ({ name, type, subtype: `subtype_${name.slice(0, 3)}`, value });
const alpha = variable('alpha', 'type_inp', 111);
const beta = variable('beta', 'type_inp', 222);
const gamma = variable('gamma', 'type_din', 333);
const xray = variable('xray', 'type_cor', 301);
const yank = variable('yank', 'type_cor', 402);
const fromInput = (input: FuncgenVariable) => ({ ...input, source: { kind: 'input' as const } });
const fromFunction = (name: string, producer: FuncgenFunction) => ({
  name, type: producer.output.type, subtype: producer.output.subtype, value: producer.output.value, source: { kind: 'function' as const, function: producer.name },
});
const funcOne: FuncgenFunction = { name: 'func_one', role: 'core', parameters: [fromInput(alpha)], output: xray };
const funcTwo: FuncgenFunction = { name: 'func_two', role: 'core', parameters: [fromInput(beta)], output: yank };
const funcTarget: FuncgenFunction = {
  name: 'func_tgt', role: 'core', parameters: [fromFunction('pone', funcOne), fromFunction('ptwo', funcTwo)], output: variable('zulu', 'type_cor', 503),
};
const funcConnected: FuncgenFunction = { name: 'func_cin', role: 'connected', parameters: [fromFunction('qone', funcOne)], output: variable('cinv', 'type_cor', 604) };
const funcDisconnected: FuncgenFunction = { name: 'func_din', role: 'disconnected', parameters: [fromInput(gamma)], output: variable('dinv', 'type_din', 705) };
const salt = 5;

function handTask(): Task {
  const functions = [funcOne, funcTwo, funcTarget, funcConnected, funcDisconnected];
  const expected: FuncgenExpected = {
    target: { variable: 'zulu', value: 503, function: 'func_tgt' },
    inputs: [alpha, beta, gamma],
    functions,
    solution: ['func_one', 'func_two', 'func_tgt'],
    wrongOutputSalt: salt,
    edges: [['func_one', 'func_tgt'], ['func_two', 'func_tgt'], ['func_one', 'func_cin']],
  };
  // Any other task fields come from a generated task, so the shape stays the suite's.
  const base = generateFuncgenTask({ seed: 0, index: 0, params: { core: 3, depth: 1, connected: 1, disconnected: 1, restate: false } });
  return {
    ...base,
    id: 'funcgen/hand/0',
    prompt: [{ role: 'user', content: funcgenPrompt('zulu', [alpha, beta, gamma]) }],
    tools: functions.map(funcgenToolSpec),
    expected: expected as unknown as JsonObject,
    limits: { maxTurns: 25, maxToolCalls: 20, timeLimitMs: 300_000 },
  };
}

let callNumber = 0;
const turn = (...calls: [string, JsonObject][]): AssistantMessage => ({
  role: 'assistant', content: '', toolCalls: calls.map(([name, args]) => createToolCall(`call_${(callNumber += 1)}`, name, JSON.stringify(args))),
});

describe('funcgen "value not yet known" is dataflow (paper section 4.6)', () => {
  test('every classification on a hand-built task, computed by hand; the old value-equality rule would differ on 4 of 10 calls', async () => {
    const wrongXray = wrongOutput(salt, 'func_one', [999], 301);
    assert.notEqual(wrongXray, 301);
    const model = replayingModel([
      turn(
        // 1. Prompt values reused for two function-fed inputs; neither producer has run: not yet known.
        //    (Old rule: both values were seen, so "incorrect value".)
        ['func_tgt', { pone: 111, ptwo: 222 }],
        // 2. alpha is a prompt input, so its variable is known; 999 is the wrong value: incorrect value.
        //    (Old rule: 999 was never seen, so "not yet known".)
        ['func_one', { alpha: 999 }],
        // 3. pone: func_one has run (wrongly), so xray is established, with the wrong value; ptwo: 402 is right
        //    by luck (func_two never ran), which is no fault. Only established variables are wrong: incorrect value.
        //    (Old rule: 402 was never seen, so "not yet known".)
        ['func_tgt', { pone: wrongXray, ptwo: 402 }],
      ),
      turn(
        // 4. pone established but wrong; ptwo's producer has not run: not yet known (predicate 3 comes first).
        ['func_tgt', { pone: wrongXray, ptwo: 111 }],
        // 5. Right inputs: correct.
        ['func_two', { beta: 222 }],
        // 6. pone right (301, never shown: a lucky guess is no fault); ptwo established by call 5, earlier in this
        //    same turn, but given a prompt value: incorrect value. (Old rule: 301 never seen, "not yet known".)
        ['func_tgt', { pone: 301, ptwo: 111 }],
      ),
      turn(
        ['func_one', { alpha: 111 }],            // 7. correct
        ['func_cin', { qone: 402 }],             // 8. func_one has run; 402 is yank, not xray: incorrect value
        ['func_din', { gamma: 333 }],            // 9. an irrelevant function with its right inputs: correct, no fault
        ['func_tgt', { pone: 301, ptwo: 402 }],  // 10. correct: 503
      ),
      { role: 'assistant', content: 'zulu = 503', toolCalls: [] },
    ]);
    const { state, score } = await runFuncgenEpisode(handTask(), 'calls', model);
    const NYK = 'arguments.value-not-yet-known';
    const INC = 'arguments.incorrect-value';
    assert.deepEqual(state.calls.map((call) => call.classification), [NYK, INC, INC, NYK, 'correct', INC, 'correct', INC, 'correct', 'correct']);
    assert.deepEqual(state.calls.map((call) => call.output), [
      wrongOutput(salt, 'func_tgt', [111, 222], 503), wrongXray, wrongOutput(salt, 'func_tgt', [wrongXray, 402], 503),
      wrongOutput(salt, 'func_tgt', [wrongXray, 111], 503), 402, wrongOutput(salt, 'func_tgt', [301, 111], 503),
      301, wrongOutput(salt, 'func_cin', [402], 604), 705, 503,
    ]);
    assert.equal(score.passed, true);
    assert.equal(score.failure, undefined);
    assert.deepEqual(score.failureCounts, { [NYK]: 2, [INC]: 4 });
    assert.equal(score.details?.correctCalls, 4);
    assert.equal(score.details?.irrelevantCalls, 2);
  });

  test('a failed episode takes its first fault: not yet known when a consumer runs before its producer', async () => {
    const model = replayingModel([
      turn(['func_tgt', { pone: 111, ptwo: 222 }], ['func_one', { alpha: 111 }], ['func_two', { beta: 222 }]),
      turn(['func_tgt', { pone: 301, ptwo: 401 }]),
      { role: 'assistant', content: 'It is 111.', toolCalls: [] },
    ]);
    const { state, score } = await runFuncgenEpisode(handTask(), 'calls', model);
    assert.deepEqual(state.calls.map((call) => call.classification), ['arguments.value-not-yet-known', 'correct', 'correct', 'arguments.incorrect-value']);
    assert.equal(score.failure, 'arguments.value-not-yet-known');
    assert.deepEqual(score.failureCounts, { 'arguments.value-not-yet-known': 1, 'arguments.incorrect-value': 1 });
  });
});

describe('funcgen names are data: any string works as a variable or parameter name', () => {
  test('a hand-edited task naming a parameter and a variable "__proto__" is solved by the oracle and random calls, with the key in every argument, result and state', async () => {
    // As a tasks file gives it: JSON.parse makes "__proto__" an own property, as it does any key.
    const task = JSON.parse(JSON.stringify(handTask()).replaceAll('"pone"', '"__proto__"').replaceAll('"xray"', '"__proto__"')) as Task;
    assert.equal(funcgenSuite.taskProblem?.(task), undefined);
    const { outcome, state, score } = await runBuiltinEpisode(task, 'calls', 'oracle');
    assert.equal(score.passed, true, JSON.stringify(state.calls));
    const calls = outcome.messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls : []));
    assert.deepEqual(calls.map((call) => call.argumentsText), ['{"alpha":111}', '{"beta":222}', '{"__proto__":301,"ptwo":402}']);
    assert.ok(calls.every((call) => call.arguments !== undefined && Object.getPrototypeOf(call.arguments) === Object.prototype));
    const results = outcome.messages.flatMap((message) => (message.role === 'tool' && message.result.ok ? [JSON.stringify(message.result.output)] : []));
    assert.deepEqual(results, ['{"__proto__":301}', '{"yank":402}', '{"zulu":503}']);
    assert.equal(JSON.stringify(state.knownValues), '{"alpha":111,"beta":222,"gamma":333,"__proto__":301,"yank":402,"zulu":503}');
    // The random baseline's arguments name every parameter too, "__proto__" included.
    const random = await runBuiltinEpisode(task, 'calls', 'random', 3);
    for (const call of random.state.calls.filter((entry) => entry.name === 'func_tgt')) assert.match(call.argumentsText, /^\{"__proto__":\d+,"ptwo":\d+\}$/);
    assert.notEqual(random.state.calls.length, 0);
    // And the generator's own schema builder keeps such a key as a property.
    const spec = funcgenToolSpec({ ...funcTarget, parameters: [{ ...funcTarget.parameters[0]!, name: '__proto__' }, funcTarget.parameters[1]!] });
    assert.equal(JSON.stringify(spec.inputSchema.properties), '{"__proto__":{"type":"integer"},"ptwo":{"type":"integer"}}');
  });
});

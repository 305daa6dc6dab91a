/**
 * Mode `calls` of the stateful suite (voice): the voice lab's MCP server as native tools. Voice tasks offer the six
 * tools the server lists; every episode gets a fresh lab over streamable HTTP on 127.0.0.1, reached with the
 * official MCP client; the model is prompted with the instructions and the first test case's values and answers with
 * RESULT as JSON; the scorer judges that RESULT and the lab's end state. builtin/oracle passes every task,
 * builtin/random none, hand-made episodes reach each verdict, and drift (which needs tools) now applies to voice.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../../src/core/json.ts';
import type { Task } from '../../../src/core/task.ts';
import type { PolicyStep } from '../../../src/models/builtin/scripted-model.ts';
import { createScriptedModel } from '../../../src/models/builtin/scripted-model.ts';
import type { GenerateRequest, ModelSource } from '../../../src/models/spec.ts';
import { generateTasks } from '../../../src/runner/generate-tasks.ts';
import { runEpisode } from '../../../src/runner/run-episode.ts';
import { runEvaluation } from '../../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../../src/store/results-store.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import { statefulSuite } from '../../../src/suites/stateful/index.ts';
import type { StatefulScoreDetails } from '../../../src/suites/stateful/score-stateful.ts';
import { readStatefulExpected } from '../../../src/suites/stateful/stateful-task.ts';
import { createVoiceCallsEnvironment, parseResultAnswer, preloadedValues, voiceCallsPrompt } from '../../../src/suites/stateful/voice/voice-calls.ts';
import { voiceToolNames } from '../../../src/suites/stateful/voice/voice-mcp-server.ts';
import { parseTransformRequest } from '../../../src/transforms/registry.ts';

async function generate(scenario: string, count: number, seed = 5, transforms: string[] = []): Promise<Task[]> {
  const params = resolveKnobs('stateful', statefulSuite.knobs, { scenario });
  return generateTasks(statefulSuite, { seed, count, params, validate: false, transforms: transforms.map((text) => parseTransformRequest(text)) });
}

function scripted(policy: (state: { history: readonly unknown[] }) => PolicyStep, requests: GenerateRequest[] = []): ModelSource {
  return {
    ref: 'test/scripted',
    forEpisode: (episode) => {
      const model = createScriptedModel({ modelId: 'scripted', mode: episode.mode, policy });
      return { ...model, generate: (request) => { requests.push(request); return model.generate(request); } };
    },
  };
}

const call = (id: string, name: string, args: JsonObject) => ({ id, name, argumentsText: JSON.stringify(args), arguments: args });

describe('stateful voice in mode calls', () => {
  test('voice tasks offer mode calls with the six MCP tools; session and tensor tasks only code, and --mode calls is refused for them', async () => {
    const [voice] = await generate('voice', 1);
    assert.deepEqual(voice.modes, ['code', 'calls']);
    assert.deepEqual(voice.tools.map((tool) => tool.name), [...voiceToolNames]);
    assert.deepEqual((voice.tools.find((tool) => tool.name === 'text_to_speech')?.inputSchema.required as string[]).sort(), ['text', 'voice_name']);
    assert.ok(voice.limits.maxToolCalls >= 15 && voice.limits.maxTurns > voice.limits.maxToolCalls);
    for (const scenario of ['session', 'tensor']) {
      const tasks = await generate(scenario, 1);
      assert.deepEqual([tasks[0].modes, tasks[0].tools], [['code'], []]);
      await assert.rejects(runEvaluation({ suite: statefulSuite, tasks, modelRef: 'builtin/oracle', mode: 'calls', seed: 5, params: tasks[0].params, store: openResultsStore(':memory:') }),
        /does not support mode 'calls' \(it supports code\)[\s\S]*fix: use --mode code/);
    }
  });

  test('the environment: a fresh lab per episode over MCP; tool errors and invalid arguments come back as tool errors; the end state is the outbound calls', async () => {
    const servers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'TCPServerWrap').length;
    const before = servers();
    const first = await createVoiceCallsEnvironment();
    const second = await createVoiceCallsEnvironment();
    const signal = new AbortController().signal;
    try {
      assert.equal(servers(), before + 2, 'each episode serves its lab over HTTP (streamable HTTP MCP on 127.0.0.1)');
      assert.deepEqual(first.listTools().map((tool) => tool.name), [...voiceToolNames]);
      const speech = await first.callTool(call('1', 'text_to_speech', { text: 'call me back', voice_name: 'Emma' }), { signal });
      assert.ok(speech.ok);
      assert.deepEqual(speech.output, { speech_id: 'speech_0', text: 'call me back', voice_name: 'Emma', stability: 0.5, similarity_boost: 0.75, style: 0, duration: 1.2, history: ['text_to_speech(Emma)'] });
      assert.deepEqual(await first.callTool(call('2', 'make_outbound_call', { speech: 'speech_0', voice_name: 'Emma' }), { signal }), { ok: true, output: { status: 'called', call_id: 'call_0' } });
      const unknownVoice = await first.callTool(call('3', 'text_to_speech', { text: 'hi', voice_name: 'Nobody' }), { signal });
      assert.deepEqual([unknownVoice.ok, !unknownVoice.ok && unknownVoice.error.code], [false, 'execution.error']);
      assert.match(!unknownVoice.ok ? unknownVoice.error.message : '', /voice 'Nobody' not found/);
      const invalid = await first.callTool(call('4', 'text_to_speech', { text: 'hi', voice_name: 'Emma', stability: 'high' }), { signal });
      assert.deepEqual([invalid.ok, !invalid.ok && invalid.error.code], [false, 'arguments.invalid']);
      assert.deepEqual(await first.callTool(call('5', 'dance', {}), { signal }), { ok: false, error: { code: 'tool.unknown', message: `there is no tool 'dance'; use one of: ${voiceToolNames.join(', ')}` } });
      assert.deepEqual(await first.snapshotState(), { testCases: [{ status: 'completed', result: null, state: { outbound_calls: [{ voice_name: 'Emma', speech: { text: 'call me back', voice_name: 'Emma', stability: 0.5, similarity_boost: 0.75, style: 0, duration: 1.2, history: ['text_to_speech(Emma)'] } }] } }] });
      // Another episode's lab is untouched.
      assert.deepEqual(await second.snapshotState(), { testCases: [{ status: 'completed', result: null, state: { outbound_calls: [] } }] });
      assert.deepEqual(await second.callTool(call('1', 'isolate_audio', { speech: 'speech_0' }), { signal }), { ok: false, error: { code: 'execution.error', message: "speech 'speech_0' does not exist: pass a Speech returned by text_to_speech, speech_to_speech or isolate_audio" } });
    } finally {
      await first.dispose();
      await second.dispose();
    }
    // A closed server leaves the handle list once libuv has closed it (the bound only stops a server never closed
    // from hanging the suite).
    for (let wait = 0; wait < 1_000 && servers() > before; wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(servers(), before, 'dispose closes both servers');
  });

  test('the prompt: the instructions (task.query) and the first test case\'s values; the tools go out as native tools', async () => {
    const [task] = await generate('voice', 1);
    const expected = readStatefulExpected(task);
    const prompt = voiceCallsPrompt(task);
    assert.equal(prompt[0].role, 'system');
    assert.match(prompt[0].content, /calling the voice lab's tools[\s\S]*RESULT as JSON/);
    assert.ok(prompt[1].content.startsWith(task.query ?? '-'));
    for (const [name, value] of preloadedValues(expected.testCases[0].initBlock)) assert.ok(prompt[1].content.includes(`- ${name} = ${JSON.stringify(value)}`), name);
    assert.deepEqual(preloadedValues('let a = {"x":1};\nlet b = "s";\nlet RESULT = null;'), [['a', { x: 1 }], ['b', 's']]);
    assert.deepEqual([parseResultAnswer('```json\n{"a": 1}\n```'), parseResultAnswer('[1, 2]'), parseResultAnswer('not json')], [{ a: 1 }, [1, 2], 'not json']);
    const requests: GenerateRequest[] = [];
    await runEpisode({ suite: statefulSuite, task, trial: 0, mode: 'calls', model: scripted(() => ({ type: 'answer', text: 'null' }), requests) });
    assert.deepEqual(requests[0].messages, prompt);
    assert.deepEqual(requests[0].tools, task.tools);
  });

  test('through the runner: builtin/oracle 100%, builtin/random 0% (each failure one RQ4 type)', async () => {
    const tasks = await generate('voice', 4);
    const params = tasks[0].params;
    const store = openResultsStore(':memory:');
    try {
      const oracle = await runEvaluation({ suite: statefulSuite, tasks, modelRef: 'builtin/oracle', mode: 'calls', seed: 5, params, store, concurrency: 2 });
      assert.equal(oracle.passRate, 1, JSON.stringify(oracle.failures));
      assert.equal(oracle.infrastructureErrors, 0);
      // Each oracle episode made, over MCP, the calls of the reference's path on the first test case.
      for (const episode of store.listEpisodes(oracle.runId)) {
        const tool = episode.calls.filter((record) => record.type === 'tool');
        assert.ok(tool.length >= 5 && tool.every((record) => record.type === 'tool' && record.result.ok), episode.taskId);
      }
      const random = await runEvaluation({ suite: statefulSuite, tasks, modelRef: 'builtin/random', mode: 'calls', seed: 5, params, store, concurrency: 2 });
      assert.equal(random.infrastructureErrors, 0);
      assert.equal(random.passRate, 0);
      const rates = ['syntaxErrorRate', 'runtimeErrorRate', 'wrongResultRate', 'wrongStateRate', 'notRunRate'].map((name) => random.metrics[name]);
      assert.equal(rates.reduce((sum, rate) => sum + rate, 0), 1);
    } finally {
      store.close();
    }
  });

  test('hand-made episodes: right calls and RESULT pass; a wrong RESULT is wrong-result; the right RESULT without the calls is wrong-state', async () => {
    const tasks = await generate('voice', 6);
    const store = openResultsStore(':memory:');
    let task: Task | undefined;
    let calls: { name: string; arguments: JsonObject }[] = [];
    try {
      // The oracle's calls, read back from its recorded episode, for a task whose first test case places a call.
      const oracle = await runEvaluation({ suite: statefulSuite, tasks, modelRef: 'builtin/oracle', mode: 'calls', seed: 5, params: tasks[0].params, store, concurrency: 2 });
      for (const candidate of tasks) {
        const state = readStatefulExpected(candidate).testCases[0].expected.state as { outbound_calls: unknown[] };
        if (state.outbound_calls.length === 0) continue;
        task = candidate;
        const episode = store.listEpisodes(oracle.runId).find((item) => item.taskId === candidate.id);
        calls = (episode?.calls ?? []).flatMap((record) => (record.type === 'tool' && record.arguments ? [{ name: record.name, arguments: record.arguments }] : []));
        break;
      }
    } finally {
      store.close();
    }
    assert.ok(task && calls.length > 0, 'a task whose first test case places an outbound call');
    const result = readStatefulExpected(task).testCases[0].expected.result;
    const run = async (withCalls: boolean, answer: string) => {
      const { score } = await runEpisode({ suite: statefulSuite, task: task as Task, trial: 0, mode: 'calls', model: scripted((state) => (withCalls && state.history.length < calls.length ? { type: 'calls', calls: [calls[state.history.length]] } : { type: 'answer', text: answer })) });
      return [score.passed, (score.details as StatefulScoreDetails).outcome];
    };
    assert.deepEqual(await run(true, `Done. RESULT:\n\`\`\`json\n${JSON.stringify(result)}\n\`\`\``), [true, 'passed']);
    assert.deepEqual(await run(true, '```json\n{"nothing": true}\n```'), [false, 'wrong-result']);
    assert.deepEqual(await run(false, JSON.stringify(result)), [false, 'wrong-state']);
    // Calls the lab refused are counted by their code, and a failed episode that made one fails for the first of them.
    const faulty = await runEpisode({ suite: statefulSuite, task, trial: 0, mode: 'calls', model: scripted((state) => (state.history.length === 0
      ? { type: 'calls', calls: [call('x1', 'no_such_tool', {}), call('x2', calls[0].name, { no_such_argument: 5 })] }
      : { type: 'answer', text: '{"nothing": true}' })) });
    assert.equal(faulty.score.passed, false);
    assert.equal(faulty.score.failure, 'tool.unknown');
    assert.deepEqual(faulty.score.failureCounts, { 'tool.unknown': 1, 'arguments.invalid': 1 });
  });

  test('drift applies to voice tasks through mode calls: the oracle passes every drifted task; the change log is in the task', async () => {
    const tasks = await generate('voice', 3, 5, ['drift:all']);
    assert.ok(tasks.every((task) => task.modes.length === 1 && task.modes[0] === 'calls'));
    assert.ok(tasks.some((task) => (task.origin?.transforms[0].changes.log as { changes: unknown[] }[]).some((entry) => entry.changes.length > 0)));
    const summary = await runEvaluation({ suite: statefulSuite, tasks, modelRef: 'builtin/oracle', seed: 5, params: tasks[0].params, store: openResultsStore(':memory:'), concurrency: 2 });
    assert.equal(summary.passRate, 1, JSON.stringify(summary.failures));
  });
});

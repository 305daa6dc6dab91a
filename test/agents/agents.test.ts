import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Environment } from '../../src/core/environment.ts';
import type { JsonValue } from '../../src/core/json.ts';
import type { Limits } from '../../src/core/limits.ts';
import type { AssistantMessage, Message } from '../../src/core/message.ts';
import { lastAssistantText } from '../../src/core/message.ts';
import { formatReactFinish, formatReactStep } from '../../src/core/react-format.ts';
import type { Task } from '../../src/core/task.ts';
import type { ToolCall, ToolResult, ToolSpec } from '../../src/core/tool.ts';
import { createToolCall } from '../../src/core/tool.ts';
import { createScriptedModel } from '../../src/models/builtin/scripted-model.ts';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../../src/models/spec.ts';
import { reactCorrectionMessage } from '../../src/agents/react.ts';
import { createGenericAgent } from '../../src/agents/registry.ts';
import type { AgentEvent, AgentOutcome } from '../../src/agents/spec.ts';
import { createCodeAgent, programAttempts } from '../../src/agents/code.ts';
import { SandboxError, ToolForgeError } from '../../src/core/errors.ts';
import type { ProgramRun } from '../../src/core/program-host.ts';
import type { ProgramResult } from '../../src/core/program.ts';
import { createSandbox } from '../../src/sandbox/index.ts';
import type { Sandbox } from '../../src/sandbox/spec.ts';

const sandbox = (() => {
  let created: Sandbox | undefined;
  after(() => created?.dispose());
  return { get: () => (created ??= createSandbox({ poolSize: 1 })) };
})();

const addTool: ToolSpec = {
  name: 'add',
  description: 'Adds two integers.',
  inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
};

/** A tiny environment: one tool, a log of every call it was handed (including unparsable ones). */
function createAddEnvironment(): Environment & { log: ToolCall[] } {
  const log: ToolCall[] = [];
  return {
    log,
    listTools: () => [addTool],
    async callTool(call: ToolCall): Promise<ToolResult> {
      log.push(call);
      if (call.name !== 'add') return { ok: false, error: { code: 'tool.unknown', message: `no tool '${call.name}'` } };
      const args = call.arguments;
      if (!args || typeof args.a !== 'number' || typeof args.b !== 'number') {
        return { ok: false, error: { code: 'arguments.invalid', message: 'a and b must be integers' } };
      }
      return { ok: true, output: { sum: args.a + args.b } };
    },
    snapshotState: async (): Promise<JsonValue> => log.map((call) => call.name),
    dispose: async () => {},
  };
}

function task(limits: Partial<Limits> = {}): Task {
  return {
    schemaVersion: 1,
    id: 'test/1/0',
    suite: { id: 'test', version: '1' },
    seed: 1,
    params: {},
    prompt: [{ role: 'user', content: 'What is 2 + 3 + 4?' }],
    tools: [addTool],
    modes: ['calls', 'react'],
    expected: 9,
    limits: { maxTurns: 10, maxToolCalls: 10, timeLimitMs: 60_000, ...limits },
    stats: {},
  };
}

/** A model that replays fixed assistant messages, one per turn, and records what it was asked. */
function replayingModel(turns: AssistantMessage[], usage = { inputTokens: 10, outputTokens: 2 }): LanguageModel & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  let index = 0;
  return {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'replaying',
    requests,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      requests.push({ ...request, messages: [...request.messages] });
      const message = turns[Math.min(index, turns.length - 1)];
      index += 1;
      return { message, finishReason: message.toolCalls.length > 0 ? 'tool-calls' : 'stop', usage, warnings: [], raw: { request: null, response: null } };
    },
  };
}

const calls = (...items: [string, string][]): AssistantMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: items.map(([name, text], index) => createToolCall(`c${index}`, name, text)),
});
const text = (content: string): AssistantMessage => ({ role: 'assistant', content, toolCalls: [] });

async function run(mode: 'calls' | 'react' | 'sequence' | 'code', model: LanguageModel, environment: Environment, theTask = task(), signal = new AbortController().signal) {
  const events: AgentEvent[] = [];
  const outcome: AgentOutcome = await createGenericAgent(mode).run(theTask, {
    model, environment, limits: theTask.limits, settings: {}, signal, emit: (event) => events.push(event), sandbox: () => sandbox.get(),
  });
  return { outcome, events };
}

const toolMessages = (messages: Message[]) => messages.filter((message) => message.role === 'tool');

describe('tool-loop agent (calls)', () => {
  test('runs several calls per turn in order, then ends on an answer without calls', async () => {
    const environment = createAddEnvironment();
    const model = replayingModel([calls(['add', '{"a":2,"b":3}'], ['add', '{"a":5,"b":4}']), text('The answer is 9.')]);
    const { outcome, events } = await run('calls', model, environment);
    assert.equal(outcome.termination, 'final-answer');
    assert.deepEqual(environment.log.map((call) => call.argumentsText), ['{"a":2,"b":3}', '{"a":5,"b":4}']);
    assert.deepEqual(toolMessages(outcome.messages).map((message) => message.role === 'tool' && message.result),
      [{ ok: true, output: { sum: 5 } }, { ok: true, output: { sum: 9 } }]);
    assert.deepEqual(outcome.messages.map((message) => message.role), ['user', 'assistant', 'tool', 'tool', 'assistant']);
    assert.equal(lastAssistantText(outcome.messages), 'The answer is 9.');
    assert.deepEqual(outcome.usage, { inputTokens: 20, outputTokens: 4 });
    assert.deepEqual(events.map((event) => event.type), ['model-call-end', 'tool-call-end', 'tool-call-end', 'model-call-end']);
    // The second request carried the tool results; tools were offered natively.
    assert.equal(model.requests[1].messages.length, 4);
    assert.deepEqual(model.requests[0].tools, [addTool]);
  });

  test('a call with unparsable arguments reaches the environment but is answered arguments.invalid', async () => {
    const environment = createAddEnvironment();
    const model = replayingModel([calls(['add', '{"a":2,']), text('9')]);
    const { outcome } = await run('calls', model, environment);
    assert.equal(outcome.termination, 'final-answer');
    assert.equal(environment.log.length, 1);
    assert.equal(environment.log[0].arguments, undefined);
    const [toolMessage] = toolMessages(outcome.messages);
    assert.ok(toolMessage.role === 'tool' && !toolMessage.result.ok);
    assert.equal(toolMessage.result.ok === false && toolMessage.result.error.code, 'arguments.invalid');
  });

  test('max-tool-calls: calls within the cap run, the one beyond it does not', async () => {
    const environment = createAddEnvironment();
    const model = replayingModel([calls(['add', '{"a":1,"b":1}'], ['add', '{"a":1,"b":2}'], ['add', '{"a":1,"b":3}'])]);
    const { outcome } = await run('calls', model, environment, task({ maxToolCalls: 2 }));
    assert.equal(outcome.termination, 'max-tool-calls');
    assert.equal(environment.log.length, 2);
  });

  test('exactly the cap of calls then an answer is not a limit', async () => {
    const environment = createAddEnvironment();
    const model = replayingModel([calls(['add', '{"a":1,"b":1}'], ['add', '{"a":1,"b":2}']), text('3')]);
    const { outcome } = await run('calls', model, environment, task({ maxToolCalls: 2 }));
    assert.equal(outcome.termination, 'final-answer');
  });

  test('max-turns: a model that keeps calling stops after maxTurns generate calls', async () => {
    const environment = createAddEnvironment();
    const model = replayingModel([calls(['add', '{"a":1,"b":1}'])]);
    const { outcome } = await run('calls', model, environment, task({ maxTurns: 3 }));
    assert.equal(outcome.termination, 'max-turns');
    assert.equal(model.requests.length, 3);
    assert.equal(environment.log.length, 3);
  });

  test('time-limit: a model call aborted by the time budget ends the episode', async () => {
    const environment = createAddEnvironment();
    const hanging: LanguageModel = {
      specificationVersion: 'v1', provider: 'test', modelId: 'hanging',
      generate: (request) => new Promise((_, reject) => {
        request.signal.addEventListener('abort', () => reject(request.signal.reason));
      }),
    };
    const { outcome } = await run('calls', hanging, environment, task({ timeLimitMs: 5 }));
    assert.equal(outcome.termination, 'time-limit');
  });

  test('a runner timeout signal is a time-limit; a plain abort is cancelled', async () => {
    const timeout = new AbortController();
    timeout.abort(new DOMException('timed out', 'TimeoutError'));
    assert.equal((await run('calls', replayingModel([text('1')]), createAddEnvironment(), task(), timeout.signal)).outcome.termination, 'time-limit');
    const cancel = new AbortController();
    cancel.abort();
    assert.equal((await run('calls', replayingModel([text('1')]), createAddEnvironment(), task(), cancel.signal)).outcome.termination, 'cancelled');
  });

  test('a thrown model error propagates (infrastructure)', async () => {
    const failing: LanguageModel = {
      specificationVersion: 'v1', provider: 'test', modelId: 'failing',
      generate: async () => { throw new Error('503 from provider'); },
    };
    await assert.rejects(run('calls', failing, createAddEnvironment()), /503 from provider/);
  });
});

describe('react agent', () => {
  test('one action per turn, observations as user messages, Finish answer is the final content', async () => {
    const environment = createAddEnvironment();
    const model = replayingModel([
      text(formatReactStep({ thought: 'add first', action: 'add', actionInput: { a: 2, b: 3 } })),
      text(formatReactStep({ thought: 'then', action: 'add', actionInput: { a: 5, b: 4 } })),
      text(formatReactFinish('done', '9')),
    ]);
    const { outcome } = await run('react', model, environment);
    assert.equal(outcome.termination, 'final-answer');
    assert.equal(environment.log.length, 2);
    assert.equal(lastAssistantText(outcome.messages), '9');
    const observations = outcome.messages.filter((message) => message.role === 'user' && message.content.startsWith('Observation: '));
    assert.deepEqual(observations.map((message) => message.role === 'user' && message.content), ['Observation: {"sum":5}', 'Observation: {"sum":9}']);
    // No native tools; the system prompt lists the tool with its schema.
    assert.deepEqual(model.requests[0].tools, []);
    const system = model.requests[0].messages[0];
    assert.equal(system.role, 'system');
    assert.ok(system.role === 'system' && system.content.includes('- add: Adds two integers.') && system.content.includes('"required":["a","b"]'));
    assert.deepEqual(outcome.usage, { inputTokens: 30, outputTokens: 6 });
  });

  test('three unparsable outputs in a row end with output-unparsable, each counted as a turn with a correction', async () => {
    const environment = createAddEnvironment();
    const model = replayingModel([text('I think it is nine'), text('hmm'), text('still no format')]);
    const { outcome } = await run('react', model, environment);
    assert.equal(outcome.termination, 'output-unparsable');
    assert.equal(model.requests.length, 3);
    assert.equal(outcome.messages.filter((message) => message.role === 'user' && message.content === reactCorrectionMessage).length, 2);
  });

  test('a parsable output resets the unparsable streak', async () => {
    const environment = createAddEnvironment();
    const model = replayingModel([
      text('nope'), text('nope'),
      text(formatReactStep({ thought: '', action: 'add', actionInput: { a: 1, b: 1 } })),
      text('nope'), text('nope'),
      text(formatReactFinish('', '2')),
    ]);
    const { outcome } = await run('react', model, environment);
    assert.equal(outcome.termination, 'final-answer');
    assert.equal(lastAssistantText(outcome.messages), '2');
  });

  test('an Action Input that is not JSON reaches the environment and is observed as arguments.invalid', async () => {
    const environment = createAddEnvironment();
    const model = replayingModel([text('Thought: x\nAction: add\nAction Input: a=1, b=2'), text(formatReactFinish('', '3'))]);
    const { outcome } = await run('react', model, environment);
    assert.equal(environment.log.length, 1);
    assert.equal(environment.log[0].arguments, undefined);
    const observation = outcome.messages.find((message) => message.role === 'user' && message.content.startsWith('Observation: '));
    assert.ok(observation?.role === 'user' && observation.content.includes('"code":"arguments.invalid"'));
  });

  test('limits: max-tool-calls and max-turns', async () => {
    const step = text(formatReactStep({ thought: '', action: 'add', actionInput: { a: 1, b: 1 } }));
    const capped = createAddEnvironment();
    assert.equal((await run('react', replayingModel([step]), capped, task({ maxToolCalls: 2 }))).outcome.termination, 'max-tool-calls');
    assert.equal(capped.log.length, 2);
    const turns = createAddEnvironment();
    assert.equal((await run('react', replayingModel([step]), turns, task({ maxTurns: 4 }))).outcome.termination, 'max-turns');
    assert.equal(turns.log.length, 4);
  });

  test('time-limit: a hanging model is cut off by the time budget', async () => {
    const hanging: LanguageModel = {
      specificationVersion: 'v1', provider: 'test', modelId: 'hanging',
      generate: (request) => new Promise((_, reject) => {
        request.signal.addEventListener('abort', () => reject(request.signal.reason));
      }),
    };
    const { outcome } = await run('react', hanging, createAddEnvironment(), task({ timeLimitMs: 5 }));
    assert.equal(outcome.termination, 'time-limit');
  });

  test('a task system prompt is merged with the react instructions; the observation is a stop sequence', async () => {
    const withSystem: Task = { ...task(), prompt: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Add.' }] };
    const model = replayingModel([text(formatReactFinish('', '0'))]);
    await run('react', model, createAddEnvironment(), withSystem);
    const [system, user, ...rest] = model.requests[0].messages;
    assert.ok(system.role === 'system' && system.content.startsWith('Be brief.\n\nYou can use the tools listed below.'));
    assert.deepEqual(user, { role: 'user', content: 'Add.' });
    assert.equal(rest.length, 0);
    assert.deepEqual(model.requests[0].settings.stop, ['\nObservation:']);
  });

  test('works with a scripted model speaking react', async () => {
    const environment = createAddEnvironment();
    const model = createScriptedModel({
      modelId: 'scripted', mode: 'react',
      policy: (state) => {
        if (state.history.length === 0) return { type: 'calls', calls: [{ name: 'add', arguments: { a: 2, b: 3 } }] };
        const last = state.history[state.history.length - 1].result;
        const sum = last?.ok && typeof last.output === 'object' && last.output !== null && !Array.isArray(last.output) ? Number(last.output.sum) : 0;
        if (state.history.length === 1) return { type: 'calls', calls: [{ name: 'add', arguments: { a: sum, b: 4 } }] };
        return { type: 'answer', text: String(sum) };
      },
    });
    const { outcome } = await run('react', model, environment);
    assert.equal(outcome.termination, 'final-answer');
    assert.equal(lastAssistantText(outcome.messages), '9');
  });

  test('a scripted model calling tools natively gives each call its JSON text and the object that text parses to', async () => {
    const model = createScriptedModel({
      modelId: 'scripted', mode: 'calls',
      policy: () => ({ type: 'calls', calls: [{ name: 'add', arguments: { a: 2, b: 3 } }, { name: 'add', arguments: { b: 1.5, a: -7 } }] }),
    });
    const { message } = await model.generate({ messages: [{ role: 'user', content: 'add' }], tools: [addTool], toolChoice: 'auto', settings: {}, signal: new AbortController().signal });
    assert.deepEqual(message.toolCalls.map((call) => [call.id, call.name, call.argumentsText]), [['call_1', 'add', '{"a":2,"b":3}'], ['call_2', 'add', '{"b":1.5,"a":-7}']]);
    for (const call of message.toolCalls) assert.deepEqual(call, createToolCall(call.id, call.name, call.argumentsText));
  });
});

describe('single-turn agent (sequence)', () => {
  for (const mode of ['sequence'] as const) {
    test(`${mode}: one generate call without tools, the output is the final message`, async () => {
      const environment = createAddEnvironment();
      const model = replayingModel([text('const x = 1;'), text('never asked')]);
      const { outcome, events } = await run(mode, model, environment);
      assert.equal(outcome.termination, 'final-answer');
      assert.equal(model.requests.length, 1);
      assert.deepEqual(model.requests[0].tools, []);
      assert.equal(model.requests[0].toolChoice, 'none');
      assert.equal(lastAssistantText(outcome.messages), 'const x = 1;');
      assert.deepEqual(events.map((event) => event.type), ['model-call-end']);
      assert.equal(environment.log.length, 0);
    });
  }

  test('agent ids and modes', () => {
    assert.deepEqual(['calls', 'react', 'sequence', 'code'].map((mode) => {
      const agent = createGenericAgent(mode as 'calls');
      return [agent.id, agent.mode];
    }), [['tool-loop', 'calls'], ['react', 'react'], ['single-turn', 'sequence'], ['code', 'code']]);
  });
});

/** A counter environment: `increment(n)` adds to its state; the answer's fenced block is the program. */
function createCounterEnvironment() {
  const state = { count: 0, runs: [] as ProgramRun[] };
  const environment: Environment = {
    listTools: () => [],
    callTool: async () => ({ ok: false, error: { code: 'tool.unknown', message: 'no tools' } }),
    bindings: () => ({
      functions: { increment: { call: (by: unknown) => { state.count += typeof by === 'number' ? by : 1; return state.count; }, returns: 'value' } },
      extractProgram: (answer) => {
        const match = /```(?:js)?\n([\s\S]*?)```/.exec(answer);
        return match ? { type: 'program', code: match[1] } : { type: 'none', reason: 'no code block', text: answer };
      },
      observe: (run) => { state.runs.push(run); },
    }),
    snapshotState: async () => ({ count: state.count }),
    dispose: async () => undefined,
  };
  return { environment, state };
}

describe('code agent', () => {
  const runCode = (model: LanguageModel, environment: Environment, sandboxOf: () => Sandbox = () => sandbox.get()) =>
    createCodeAgent().run(task(), { model, environment, limits: task().limits, settings: {}, signal: new AbortController().signal, emit: () => {}, sandbox: sandboxOf });

  test('runs the extracted program against the bindings once, tells the environment, ends the episode', async () => {
    const { environment, state } = createCounterEnvironment();
    const model = replayingModel([text('```js\nincrement(2); increment(); return increment(4);\n```'), text('never asked')]);
    const outcome = await runCode(model, environment);
    assert.equal(outcome.termination, 'final-answer');
    assert.equal(model.requests.length, 1);
    assert.deepEqual(model.requests[0].tools, []);
    assert.equal(state.count, 7);
    assert.equal(state.runs.length, 1);
    assert.equal(state.runs[0].attempts, 1);
    assert.equal(state.runs[0].result?.status, 'completed');
    assert.equal(state.runs[0].result?.status === 'completed' ? state.runs[0].result.value : null, 7);
  });

  test('an answer without a program runs nothing and is reported as such', async () => {
    const { environment, state } = createCounterEnvironment();
    await runCode(replayingModel([text('I would increment it.')]), environment);
    assert.equal(state.count, 0);
    assert.deepEqual(state.runs, [{ extraction: { type: 'none', reason: 'no code block', text: 'I would increment it.' }, result: null, attempts: 0 }]);
  });

  test('a sandbox crash re-runs the program, never the model call', async () => {
    const { environment, state } = createCounterEnvironment();
    let crashes = 0;
    const flaky: Sandbox = {
      run: async (program, options) => {
        if (crashes < 2) { crashes += 1; throw new SandboxError('sandbox.crashed', 'worker died'); }
        return sandbox.get().run(program, options);
      },
      dispose: async () => undefined,
    };
    const model = replayingModel([text('```js\nincrement();\n```')]);
    await runCode(model, environment, () => flaky);
    assert.equal(model.requests.length, 1);
    assert.equal(state.runs[0].attempts, 3);
    assert.equal(state.count, 1);

    const broken: Sandbox = { run: async () => { throw new SandboxError('sandbox.crashed', 'worker died'); }, dispose: async () => undefined };
    const again = replayingModel([text('```js\nincrement();\n```')]);
    await assert.rejects(runCode(again, createCounterEnvironment().environment, () => broken),
      (error: unknown) => error instanceof ToolForgeError && !(error instanceof SandboxError) && error.code === 'sandbox.crashed' && new RegExp(`${programAttempts} times`).test(error.message));
    assert.equal(again.requests.length, 1);
  });
  test('with variants, the program runs once per variant in a fresh world; a crash reopens only that variant', async () => {
    const opened: string[] = [];
    const closed: { label: string; status: string | null; count: number }[] = [];
    const runs: ProgramRun[] = [];
    const variant = (label: string, start: number) => ({
      label,
      async open() {
        opened.push(label);
        const world = { count: start };
        return {
          code: (program: string) => `const START = ${start};\n${program}`,
          functions: { increment: { call: () => { world.count += 1; return world.count; }, returns: 'value' as const } },
          async close(result: ProgramResult | null) { closed.push({ label, status: result?.status ?? null, count: world.count }); },
        };
      },
    });
    const environment: Environment = {
      ...createCounterEnvironment().environment,
      bindings: () => ({
        functions: {},
        extractProgram: (answer) => ({ type: 'program', code: /```js\n([\s\S]*?)```/.exec(answer)?.[1] ?? '' }),
        variants: [variant('first', 0), variant('second', 10)],
        observe: (run) => { runs.push(run); },
      }),
    };
    let crashes = 0;
    const flaky: Sandbox = {
      run: async (program, options) => {
        if (program.code.includes('START = 10') && crashes < 1) { crashes += 1; throw new SandboxError('sandbox.crashed', 'worker died'); }
        return sandbox.get().run(program, options);
      },
      dispose: async () => undefined,
    };
    const model = replayingModel([text('```js\nincrement(); return START + increment();\n```')]);
    await runCode(model, environment, () => flaky);
    assert.equal(model.requests.length, 1);
    assert.deepEqual(opened, ['first', 'second', 'second']);
    assert.deepEqual(closed, [
      { label: 'first', status: 'completed', count: 2 },
      { label: 'second', status: null, count: 10 },
      { label: 'second', status: 'completed', count: 12 },
    ]);
    assert.equal(runs.length, 1);
    assert.deepEqual(runs[0].variants?.map((run) => [run.label, run.attempts, run.result?.status === 'completed' ? run.result.value : null]), [['first', 1, 2], ['second', 2, 22]]);
    assert.equal(runs[0].attempts, 3);
    assert.equal(runs[0].result?.status === 'completed' ? runs[0].result.value : null, 22);
  });
});

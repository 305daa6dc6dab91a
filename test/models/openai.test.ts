import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Message } from '../../src/core/message.ts';
import { createToolCall } from '../../src/core/tool.ts';
import { createModelSource } from '../../src/models/registry.ts';
import type { LanguageModel } from '../../src/models/spec.ts';
import { episodeTask, generateRequest, runModelProviderCases, toolExchangeMessages } from '../conformance/model-provider.cases.ts';
import type { VendorFakeServer } from '../fakes/fake-reply.ts';
import { startOpenAIFakeServer } from '../fakes/openai-server.ts';
import { openAITools, openAIToolExchangeMessages } from './openai-wire-fixtures.ts';

runModelProviderCases({
  provider: 'openai',
  startServer: startOpenAIFakeServer,
  apiKeyVariable: 'OPENAI_API_KEY',
  argumentsOnWire: 'text',
  returnsCallIds: true,
  completion: 'ignored',
  assertToolExchangeRequest(body) {
    assert.deepEqual(body, { model: 'test-model', messages: openAIToolExchangeMessages, tools: openAITools, tool_choice: 'auto' });
  },
  assertToolsRequest(body) {
    assert.deepEqual((body as { tools: unknown }).tools, openAITools);
    assert.equal((body as { tool_choice: unknown }).tool_choice, 'auto');
  },
  assertSettingsRequest(body, warnings) {
    const { temperature, top_p, max_completion_tokens, seed, stop } = body as Record<string, unknown>;
    assert.deepEqual({ temperature, top_p, max_completion_tokens, seed, stop }, { temperature: 0.5, top_p: 0.9, max_completion_tokens: 77, seed: 3, stop: ['END'] });
    assert.deepEqual(warnings, []);
  },
  assertAuthentication(request, apiKey) {
    assert.equal(request.headers.authorization, `Bearer ${apiKey}`);
  },
});

describe('openai specifics', () => {
  let server: VendorFakeServer;
  beforeEach(async () => { server = await startOpenAIFakeServer(); });
  afterEach(async () => { await server.close(); });
  const model = (): LanguageModel => createModelSource('openai/test-model', { baseUrl: server.baseUrl, env: { OPENAI_API_KEY: 'k' } })
    .forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });

  test('reads reasoning, makes up missing call ids per turn, and calls a stop with tool calls tool-calls', async () => {
    server.reply({
      type: 'raw', status: 200,
      body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: null, reasoning_content: 'think', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{}' } }, { type: 'function', function: { name: 'get_time', arguments: { city: 'Rome' } } }] }, finish_reason: 'stop' }] }),
    });
    const history: Message[] = [...toolExchangeMessages, { role: 'assistant', content: 'more?', toolCalls: [] }, { role: 'user', content: 'yes' }];
    const result = await model().generate(generateRequest(history));
    assert.equal(result.message.reasoning, 'think');
    assert.equal(result.message.content, '');
    // Two assistant turns came before this one.
    assert.deepEqual(result.message.toolCalls.map((call) => [call.id, call.argumentsText]), [['call_2_0', '{}'], ['call_2_1', '{"city":"Rome"}']]);
    assert.equal(result.finishReason, 'tool-calls');
    assert.deepEqual(result.usage, { inputTokens: 0, outputTokens: 0 });
  });

  test('sends malformed argument text back verbatim, required tool choice as required, and no tool fields without tools', async () => {
    server.reply({ type: 'message', text: 'a' }, { type: 'message', text: 'b' });
    const malformed = createToolCall('call_x', 'get_weather', '{"city": Par');
    await model().generate(generateRequest([{ role: 'user', content: 'q' }, { role: 'assistant', content: '', toolCalls: [malformed] }, { role: 'tool', toolCallId: 'call_x', toolName: 'get_weather', result: { ok: false, error: { code: 'arguments.invalid', message: 'bad JSON' } } }], { toolChoice: 'required' }));
    const first = server.requests[0].body as { messages: { tool_calls?: { function: { arguments: string } }[] }[]; tool_choice: unknown };
    assert.equal(first.messages[1].tool_calls?.[0].function.arguments, '{"city": Par');
    assert.equal(first.tool_choice, 'required');
    await model().generate(generateRequest([{ role: 'user', content: 'q' }], { tools: [] }));
    const second = server.requests[1].body as Record<string, unknown>;
    assert.equal('tools' in second, false);
    assert.equal('tool_choice' in second, false);
  });

  test('a tool call the model wrote malformed (no name, a number id, another type) is a call to score, not a broken response', async () => {
    server.reply({
      type: 'raw', status: 200,
      body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [
        { id: 'a', type: 'function', function: { arguments: '{}' } },
        { id: 5, type: 'function', function: { name: null, arguments: { x: 1 } } },
        { id: 'c', type: 'custom', custom: { name: 'get_time', input: 'now' } },
      ] }, finish_reason: 'tool_calls' }] }),
    });
    const result = await model().generate(generateRequest([{ role: 'user', content: 'q' }]));
    assert.deepEqual(result.message.toolCalls.map((call) => [call.id, call.name, call.argumentsText]), [['a', '', '{}'], ['5', '', '{"x":1}'], ['c', 'get_time', 'now']]);
    assert.equal(result.finishReason, 'tool-calls');
  });

  test('a refusal is the content filter\'s answer, its text kept as a warning', async () => {
    server.reply({ type: 'raw', status: 200, body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, finish_reason: 'stop' }] }) });
    const result = await model().generate(generateRequest([{ role: 'user', content: 'q' }]));
    assert.equal(result.finishReason, 'content-filter');
    assert.equal(result.message.content, '');
    assert.deepEqual(result.warnings, [{ type: 'other', message: 'the model refused: I cannot help with that.' }]);
  });

  test('content filter finish maps to content-filter', async () => {
    server.reply({ type: 'message', text: '', finish: 'content-filter' });
    assert.equal((await model().generate(generateRequest([{ role: 'user', content: 'q' }]))).finishReason, 'content-filter');
  });
});

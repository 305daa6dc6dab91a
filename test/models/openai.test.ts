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

  test('the base URL, organization and project come from OPENAI_BASE_URL, OPENAI_ORG_ID and OPENAI_PROJECT_ID, as the openai SDK reads them', async () => {
    server.reply({ type: 'message', text: 'hi' });
    const fromEnvironment = createModelSource('openai/test-model', { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.baseUrl}/`, OPENAI_ORG_ID: 'org-1', OPENAI_PROJECT_ID: 'proj-1' } })
      .forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });
    assert.equal((await fromEnvironment.generate(generateRequest([{ role: 'user', content: 'q' }]))).message.content, 'hi');
    const [request] = server.requests;
    // A base URL ending in a slash is not doubled.
    assert.equal(request.path, '/v1/chat/completions');
    assert.deepEqual([request.headers['openai-organization'], request.headers['openai-project'], request.headers['content-type']], ['org-1', 'proj-1', 'application/json']);
  });

  test('an HTTP error is worded as the openai SDK words it: the body\'s error message, else its text, else "(no body)"', async () => {
    server.reply(
      { type: 'http-error', status: 400, message: 'unknown parameter' },
      { type: 'raw', status: 400, body: 'upstream says no', contentType: 'text/plain' },
      { type: 'raw', status: 403, body: '' },
      { type: 'raw', status: 404, body: JSON.stringify({ error: 'gone' }) },
    );
    const messages: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      await assert.rejects(model().generate(generateRequest([{ role: 'user', content: 'q' }])), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'provider.request-rejected');
        messages.push(error.message.split('\n')[0]);
        return true;
      });
    }
    assert.match(messages[0], /HTTP 400 for model 'test-model': 400 unknown parameter/);
    assert.match(messages[1], /HTTP 400 for model 'test-model': 400 upstream says no/);
    assert.match(messages[2], /HTTP 403 for model 'test-model': 403 status code \(no body\)/);
    assert.match(messages[3], /HTTP 404 for model 'test-model': 404 "gone"/);
  });

  test('a 200 whose body is text, or JSON that does not parse, is an invalid response (retried), not a crash', async () => {
    server.reply({ type: 'raw', status: 200, body: '<html>proxy</html>', contentType: 'text/html' }, { type: 'raw', status: 200, body: '{"choices": [' });
    await assert.rejects(model().generate(generateRequest([{ role: 'user', content: 'q' }])), /invalid response .*the body is text, not JSON \(it starts "<html>proxy<\/html>"\)/);
    await assert.rejects(model().generate(generateRequest([{ role: 'user', content: 'q' }])), /invalid response .*not valid JSON/);
  });

  test('the request timeout holds on the bare model too (no retrying wrapper): a server that never answers is a provider.timeout', async () => {
    server.reply({ type: 'hang' });
    const bare = createModelSource('openai/test-model', { baseUrl: server.baseUrl, env: { OPENAI_API_KEY: 'k' }, requestTimeoutMs: 150 })
      .forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });
    await assert.rejects(bare.generate(generateRequest([{ role: 'user', content: 'q' }])), (error: Error & { code?: string; isRetryable?: boolean }) => {
      assert.equal(error.code, 'provider.timeout');
      assert.equal(error.isRetryable, true);
      return true;
    });
  });

  test('content filter finish maps to content-filter', async () => {
    server.reply({ type: 'message', text: '', finish: 'content-filter' });
    assert.equal((await model().generate(generateRequest([{ role: 'user', content: 'q' }]))).finishReason, 'content-filter');
  });
});

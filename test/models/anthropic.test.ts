import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { ProviderError } from '../../src/core/errors.ts';
import { createToolCall } from '../../src/core/tool.ts';
import { createModelSource } from '../../src/models/registry.ts';
import type { LanguageModel } from '../../src/models/spec.ts';
import { episodeTask, generateRequest, runModelProviderCases, toolExchangeMessages } from '../conformance/model-provider.cases.ts';
import { startAnthropicFakeServer } from '../fakes/anthropic-server.ts';
import type { VendorFakeServer } from '../fakes/fake-reply.ts';

const anthropicTools = [
  { name: 'get_weather', description: 'Current weather in a city.', input_schema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'] } },
  { name: 'get_time', description: 'Local time in a city.', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
];

runModelProviderCases({
  provider: 'anthropic',
  startServer: startAnthropicFakeServer,
  apiKeyVariable: 'ANTHROPIC_API_KEY',
  argumentsOnWire: 'object',
  returnsCallIds: true,
  completion: 'ignored',
  assertToolExchangeRequest(body) {
    assert.deepEqual(body, {
      model: 'test-model',
      max_tokens: 4096,
      system: 'You answer weather questions.',
      messages: [
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'call_b', name: 'get_time', input: { city: 'Paris' } },
          ],
        },
        // Both results in one user turn, the failed one flagged is_error.
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_a', content: '{"temperature":18,"unit":"c"}' },
            { type: 'tool_result', tool_use_id: 'call_b', content: '{"error":{"code":"unavailable","message":"clock offline"}}', is_error: true },
          ],
        },
      ],
      tools: anthropicTools,
      tool_choice: { type: 'auto' },
    });
  },
  assertToolsRequest(body) {
    assert.deepEqual((body as { tools: unknown }).tools, anthropicTools);
    assert.deepEqual((body as { tool_choice: unknown }).tool_choice, { type: 'auto' });
  },
  assertSettingsRequest(body, warnings) {
    const { temperature, top_p, max_tokens, seed, stop_sequences } = body as Record<string, unknown>;
    assert.deepEqual({ temperature, top_p, max_tokens, seed, stop_sequences }, { temperature: undefined, top_p: undefined, max_tokens: 77, seed: undefined, stop_sequences: ['END'] });
    // The Messages API version of this SDK has no sampling parameters.
    assert.deepEqual(warnings.map((warning) => [warning.type, warning.message.match(/'(\w+)'/)?.[1]]), [
      ['unsupported-setting', 'temperature'], ['unsupported-setting', 'topP'], ['unsupported-setting', 'seed'],
    ]);
  },
  assertAuthentication(request, apiKey) {
    const sent = request.headers['x-api-key'] ?? request.headers.authorization;
    assert.ok(sent === apiKey || sent === `Bearer ${apiKey}`, `no credentials in ${JSON.stringify(request.headers)}`);
    assert.ok(request.headers['anthropic-version']);
  },
});

describe('anthropic specifics', () => {
  let server: VendorFakeServer;
  beforeEach(async () => { server = await startAnthropicFakeServer(); });
  afterEach(async () => { await server.close(); });
  const model = (): LanguageModel => createModelSource('anthropic/test-model', { baseUrl: server.baseUrl, env: { ANTHROPIC_API_KEY: 'k' } })
    .forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });

  test('529 overloaded is a retryable server error', async () => {
    server.reply({ type: 'http-error', status: 529, message: 'Overloaded' });
    await assert.rejects(model().generate(generateRequest([{ role: 'user', content: 'q' }])), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.deepEqual([error.code, error.isRetryable, error.statusCode], ['provider.server-error', true, 529]);
      return true;
    });
  });

  test('a user message after tool results joins their user turn; text and calls share the assistant turn', async () => {
    server.reply({ type: 'message', text: 'ok' });
    const messages = [
      ...toolExchangeMessages.slice(0, 2),
      { role: 'assistant' as const, content: 'Checking.', toolCalls: [createToolCall('call_a', 'get_weather', '{"city": Par')] },
      toolExchangeMessages[3],
      { role: 'user' as const, content: 'Be brief.' },
    ];
    await model().generate(generateRequest(messages, { toolChoice: 'required' }));
    const body = server.requests[0].body as { messages: unknown[]; tool_choice: unknown };
    assert.deepEqual(body.messages.slice(1), [
      // A call whose text did not parse goes back with an empty input object.
      { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'call_a', name: 'get_weather', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_a', content: '{"temperature":18,"unit":"c"}' }, { type: 'text', text: 'Be brief.' }] },
    ]);
    assert.deepEqual(body.tool_choice, { type: 'any' });
  });

  test('an empty assistant turn is dropped and the user turns around it merge', async () => {
    server.reply({ type: 'message', text: 'ok' });
    await model().generate(generateRequest([
      { role: 'user', content: 'first' }, { role: 'assistant', content: '', toolCalls: [] }, { role: 'user', content: 'second' },
    ]));
    assert.deepEqual((server.requests[0].body as { messages: unknown }).messages, [
      { role: 'user', content: [{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }] },
    ]);
  });

  test('thinking blocks become reasoning; refusal maps to content-filter; no tools sends no tool fields', async () => {
    server.reply({
      type: 'raw', status: 200,
      body: JSON.stringify({ id: 'm', type: 'message', role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'No.' }], stop_reason: 'refusal', usage: { input_tokens: 4, output_tokens: 1 } }),
    });
    const result = await model().generate(generateRequest([{ role: 'user', content: 'q' }], { tools: [] }));
    assert.deepEqual(result.message, { role: 'assistant', content: 'No.', toolCalls: [], reasoning: 'hmm' });
    assert.equal(result.finishReason, 'content-filter');
    const body = server.requests[0].body as Record<string, unknown>;
    assert.equal('tools' in body, false);
    assert.equal('tool_choice' in body, false);
  });
});

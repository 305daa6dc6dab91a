import assert from 'node:assert/strict';
import { runModelProviderCases } from '../conformance/model-provider.cases.ts';
import { startAnthropicFakeServer } from '../fakes/anthropic-server.ts';

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

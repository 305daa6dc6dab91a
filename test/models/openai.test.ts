import assert from 'node:assert/strict';
import { runModelProviderCases } from '../conformance/model-provider.cases.ts';
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

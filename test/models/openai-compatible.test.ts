import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { createModelSource } from '../../src/models/registry.ts';
import { runModelProviderCases } from '../conformance/model-provider.cases.ts';
import { startOpenAIFakeServer } from '../fakes/openai-server.ts';
import { openAIToolExchangeMessages } from './openai-wire-fixtures.ts';

runModelProviderCases({
  provider: 'openai-compatible',
  startServer: startOpenAIFakeServer,
  apiKeyVariable: undefined,
  argumentsOnWire: 'text',
  returnsCallIds: true,
  completion: 'endpoint',
  assertToolExchangeRequest(body) {
    assert.deepEqual((body as { messages: unknown }).messages, openAIToolExchangeMessages);
  },
  assertToolsRequest(body) {
    const { tools, tool_choice } = body as { tools: { function: { name: string; parameters: unknown } }[]; tool_choice: unknown };
    assert.deepEqual(tools.map((tool) => tool.function.name), ['get_weather', 'get_time']);
    assert.equal(tool_choice, 'auto');
  },
  assertSettingsRequest(body, warnings) {
    // Local servers know max_tokens, not OpenAI's newer max_completion_tokens.
    const { temperature, top_p, max_tokens, max_completion_tokens, seed, stop } = body as Record<string, unknown>;
    assert.deepEqual({ temperature, top_p, max_tokens, max_completion_tokens, seed, stop }, { temperature: 0.5, top_p: 0.9, max_tokens: 77, max_completion_tokens: undefined, seed: 3, stop: ['END'] });
    assert.deepEqual(warnings, []);
  },
  assertAuthentication(request, apiKey) {
    assert.equal(request.headers.authorization, apiKey === undefined ? undefined : `Bearer ${apiKey}`);
  },
});

test('openai-compatible without --base-url is a ConfigError that shows an example URL', () => {
  assert.throws(() => createModelSource('openai-compatible/llama', { env: {} }), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.equal(error.code, 'config.invalid');
    assert.match(error.message, /--base-url http:\/\/127\.0\.0\.1:8000\/v1/);
    return true;
  });
});

test('openai-compatible never sends OPENAI_API_KEY to its --base-url host; OPENAI_COMPATIBLE_API_KEY is sent', async () => {
  const server = await startOpenAIFakeServer();
  try {
    const generate = async (env: Record<string, string>) => {
      server.reply({ type: 'message', text: 'hi' });
      const model = createModelSource('openai-compatible/llama', { baseUrl: server.baseUrl, env }).forEpisode({} as never);
      await model.generate({ messages: [{ role: 'user', content: 'hello' }], tools: [], toolChoice: 'auto', settings: {}, signal: AbortSignal.timeout(10_000) });
      return server.requests.at(-1)?.headers.authorization;
    };
    assert.equal(await generate({ OPENAI_API_KEY: 'real-openai-key' }), undefined);
    assert.equal(await generate({ OPENAI_API_KEY: 'real-openai-key', OPENAI_COMPATIBLE_API_KEY: 'local-key' }), 'Bearer local-key');
  } finally {
    await server.close();
  }
});

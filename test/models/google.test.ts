import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { ProviderError } from '../../src/core/errors.ts';
import { createModelSource } from '../../src/models/registry.ts';
import type { LanguageModel } from '../../src/models/spec.ts';
import { episodeTask, generateRequest, runModelProviderCases } from '../conformance/model-provider.cases.ts';
import type { VendorFakeServer } from '../fakes/fake-reply.ts';
import { startGoogleFakeServer } from '../fakes/google-server.ts';

const googleTools = [{
  functionDeclarations: [
    { name: 'get_weather', description: 'Current weather in a city.', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'] } },
    { name: 'get_time', description: 'Local time in a city.', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  ],
}];

runModelProviderCases({
  provider: 'google',
  startServer: startGoogleFakeServer,
  apiKeyVariable: 'GEMINI_API_KEY',
  argumentsOnWire: 'object',
  returnsCallIds: false,
  completion: 'ignored',
  assertToolExchangeRequest(body) {
    assert.deepEqual(body, {
      contents: [
        { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'call_a', name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { id: 'call_b', name: 'get_time', args: { city: 'Paris' } } },
          ],
        },
        // Both results as functionResponse parts of one user turn; `output` for a result, `error` for a failure.
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'call_a', name: 'get_weather', response: { output: { temperature: 18, unit: 'c' } } } },
            { functionResponse: { id: 'call_b', name: 'get_time', response: { error: { code: 'unavailable', message: 'clock offline' } } } },
          ],
        },
      ],
      systemInstruction: { role: 'user', parts: [{ text: 'You answer weather questions.' }] },
      tools: googleTools,
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: {},
    });
  },
  assertToolsRequest(body) {
    assert.deepEqual((body as { tools: unknown }).tools, googleTools);
    assert.deepEqual((body as { toolConfig: unknown }).toolConfig, { functionCallingConfig: { mode: 'AUTO' } });
  },
  assertSettingsRequest(body, warnings) {
    assert.deepEqual((body as { generationConfig: unknown }).generationConfig, { temperature: 0.5, topP: 0.9, maxOutputTokens: 77, seed: 3, stopSequences: ['END'] });
    assert.deepEqual(warnings, []);
  },
  assertAuthentication(request, apiKey) {
    assert.equal(request.headers['x-goog-api-key'], apiKey);
  },
});

describe('google specifics', () => {
  let server: VendorFakeServer;
  beforeEach(async () => { server = await startGoogleFakeServer(); });
  afterEach(async () => { await server.close(); });
  const model = (env: Record<string, string> = { GEMINI_API_KEY: 'k' }): LanguageModel => createModelSource('google/test-model', { baseUrl: server.baseUrl, env })
    .forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });

  test('ids Gemini did not send are made up per turn and never sent back', async () => {
    server.reply({ type: 'message', toolCalls: [{ id: 'ignored', name: 'get_weather', argumentsText: '{"city":"Paris"}' }] }, { type: 'message', text: 'done' });
    const gemini = model();
    const first = await gemini.generate(generateRequest([{ role: 'user', content: 'q' }], { toolChoice: 'required' }));
    const [call] = first.message.toolCalls;
    assert.equal(call.id, 'gemini_call_0_0');
    await gemini.generate(generateRequest([
      { role: 'user', content: 'q' }, first.message,
      { role: 'tool', toolCallId: call.id, toolName: 'get_weather', result: { ok: true, output: 'sunny' } },
    ]));
    const [firstBody, secondBody] = server.requests.map((request) => request.body as { contents: unknown[]; toolConfig: unknown });
    assert.deepEqual(firstBody.toolConfig, { functionCallingConfig: { mode: 'ANY' } });
    assert.deepEqual(secondBody.contents.slice(1), [
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] },
    ]);
  });

  test('a thought signature on a function call is kept on the call and sent back with it', async () => {
    server.reply(
      { type: 'raw', status: 200, body: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'get_time', args: { city: 'Oslo' } }, thoughtSignature: 'c2lnbmF0dXJl' }] }, finishReason: 'STOP' }] }) },
      { type: 'message', text: 'noon' },
    );
    const gemini = model();
    const first = await gemini.generate(generateRequest([{ role: 'user', content: 'q' }]));
    const [call] = first.message.toolCalls;
    assert.deepEqual(call.providerMetadata, { google: { thoughtSignature: 'c2lnbmF0dXJl' } });
    await gemini.generate(generateRequest([
      { role: 'user', content: 'q' }, first.message, { role: 'tool', toolCallId: call.id, toolName: 'get_time', result: { ok: true, output: '12:00' } },
    ]));
    const body = server.requests[1].body as { contents: unknown[] };
    assert.deepEqual(body.contents[1], { role: 'model', parts: [{ functionCall: { name: 'get_time', args: { city: 'Oslo' } }, thoughtSignature: 'c2lnbmF0dXJl' }] });
  });

  test('thought parts become reasoning and thought tokens count as output', async () => {
    server.reply({
      type: 'raw', status: 200,
      body: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'plan', thought: true }, { text: 'Answer.' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 2, thoughtsTokenCount: 5 } }),
    });
    const result = await model().generate(generateRequest([{ role: 'user', content: 'q' }]));
    assert.deepEqual(result.message, { role: 'assistant', content: 'Answer.', toolCalls: [], reasoning: 'plan' });
    assert.deepEqual(result.usage, { inputTokens: 9, outputTokens: 7 });
  });

  test('a malformed function call is finish reason error and a blocked prompt an empty content-filter answer', async () => {
    server.reply(
      { type: 'raw', status: 200, body: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL' }] }) },
      { type: 'raw', status: 200, body: JSON.stringify({ promptFeedback: { blockReason: 'SAFETY' } }) },
    );
    const malformed = await model().generate(generateRequest([{ role: 'user', content: 'q' }]));
    assert.deepEqual([malformed.finishReason, malformed.message.content, malformed.message.toolCalls], ['error', '', []]);
    const blocked = await model().generate(generateRequest([{ role: 'user', content: 'q' }]));
    assert.deepEqual([blocked.finishReason, blocked.message.content], ['content-filter', '']);
  });

  test('the wait of a 429 comes from the body\'s RetryInfo (fractional seconds too); a Retry-After header, when a gateway adds one, wins', async () => {
    const quotaError = (retryDelay: string) => JSON.stringify({ error: {
      code: 429, message: 'You exceeded your current quota. Please retry in 45.8s.', status: 'RESOURCE_EXHAUSTED',
      details: [{ '@type': 'type.googleapis.com/google.rpc.Help', links: [] }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }],
    } });
    server.reply(
      { type: 'raw', status: 429, body: quotaError('45.837906927s') },
      { type: 'raw', status: 429, body: quotaError('53s'), headers: { 'retry-after': '2' } },
      { type: 'raw', status: 503, body: JSON.stringify([{ error: { code: 503, status: 'UNAVAILABLE', message: 'overloaded', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }] } }]) },
      { type: 'raw', status: 429, body: JSON.stringify({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'slow down', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: 'soon' }] } }) },
      { type: 'raw', status: 429, body: 'not json' },
    );
    const waits: (number | undefined)[] = [];
    for (let index = 0; index < 5; index += 1) {
      await assert.rejects(model().generate(generateRequest([{ role: 'user', content: 'q' }])), (error: unknown) => {
        assert.ok(error instanceof ProviderError && error.isRetryable, String(error));
        waits.push(error.retryAfterSeconds);
        return true;
      });
    }
    assert.deepEqual(waits, [45.837906927, 2, 3, undefined, undefined]);
  });

  test('GOOGLE_API_KEY works when GEMINI_API_KEY is unset, and a 403 then names it', async () => {
    server.reply({ type: 'message', text: 'hi' }, { type: 'http-error', status: 403, message: 'API key not valid' });
    const google = model({ GOOGLE_API_KEY: 'g-key' });
    assert.equal((await google.generate(generateRequest([{ role: 'user', content: 'q' }]))).message.content, 'hi');
    assert.equal(server.requests[0].headers['x-goog-api-key'], 'g-key');
    await assert.rejects(google.generate(generateRequest([{ role: 'user', content: 'q' }])), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.match(error.message, /GOOGLE_API_KEY/);
      return true;
    });
  });
});

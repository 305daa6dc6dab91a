import assert from 'node:assert/strict';
import { runModelProviderCases } from '../conformance/model-provider.cases.ts';
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

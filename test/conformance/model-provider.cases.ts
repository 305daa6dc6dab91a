/**
 * One behaviour suite for every network model provider. Each provider's test file calls
 * `runModelProviderCases` with its fake vendor server and the vendor-shaped request bodies it must
 * send; the cases drive the real adapter, through the real SDK, over real HTTP on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { ConfigError, ProviderError } from '../../src/core/errors.ts';
import type { Message } from '../../src/core/message.ts';
import type { Task } from '../../src/core/task.ts';
import type { ToolSpec } from '../../src/core/tool.ts';
import { createToolCall } from '../../src/core/tool.ts';
import { createModelSource } from '../../src/models/registry.ts';
import type { GenerateRequest, GenerateResult, LanguageModel, ProviderWarning } from '../../src/models/spec.ts';
import type { RecordedRequest } from '../fakes/fake-http-server.ts';
import { findClosedPort } from '../fakes/fake-http-server.ts';
import type { VendorFakeServer } from '../fakes/fake-reply.ts';

export type ModelProviderCaseOptions = {
  provider: 'openai' | 'openai-compatible' | 'anthropic' | 'google';
  startServer: () => Promise<VendorFakeServer>;
  /** The variable the key comes from; undefined for providers that work without a key. */
  apiKeyVariable: string | undefined;
  /**
   * 'text': the wire carries argument text, kept byte-for-byte (OpenAI). 'object': the wire carries an
   * object, so `argumentsText` is its JSON.stringify (or the raw string when a server sends one).
   */
  argumentsOnWire: 'text' | 'object';
  /** Whether vendor call ids come back (Gemini sends none, so ids are made up). */
  returnsCallIds: boolean;
  /** 'endpoint': completion requests go to /v1/completions; 'ignored': answered as chat with a warning. */
  completion: 'endpoint' | 'ignored';
  /** The request after the tool exchange below, in the vendor's shape. */
  assertToolExchangeRequest(body: unknown): void;
  /** How the two tools are declared on the wire. */
  assertToolsRequest(body: unknown): void;
  /** temperature 0.5, topP 0.9, maxOutputTokens 77, seed 3, stop ['END'] on the wire, or warned about. */
  assertSettingsRequest(body: unknown, warnings: ProviderWarning[]): void;
  assertAuthentication(request: RecordedRequest, apiKey: string | undefined): void;
};

export const weatherTool: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'] },
};
export const timeTool: ToolSpec = {
  name: 'get_time',
  description: 'Local time in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** The conversation of the tool-exchange case: two calls in one turn, one result ok, one an error. */
export const toolExchangeMessages: Message[] = [
  { role: 'system', content: 'You answer weather questions.' },
  { role: 'user', content: 'Weather and time in Paris?' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [createToolCall('call_a', 'get_weather', '{"city":"Paris"}'), createToolCall('call_b', 'get_time', '{"city":"Paris"}')],
  },
  { role: 'tool', toolCallId: 'call_a', toolName: 'get_weather', result: { ok: true, output: { temperature: 18, unit: 'c' } } },
  { role: 'tool', toolCallId: 'call_b', toolName: 'get_time', result: { ok: false, error: { code: 'unavailable', message: 'clock offline' } } },
];

const testKey = 'test-key-123';
const modelId = 'test-model';

export function episodeTask(id = 'suite-x/task-1'): Task {
  return {
    schemaVersion: 1, id, suite: { id: 'suite-x', version: '1' }, seed: 0, params: {}, prompt: [], tools: [],
    modes: ['calls'], expected: null, limits: { maxTurns: 5, maxToolCalls: 5, timeLimitMs: 60_000 }, stats: {},
  };
}

export function generateRequest(messages: Message[], overrides: Partial<GenerateRequest> = {}): GenerateRequest {
  return { messages, tools: [weatherTool, timeTool], toolChoice: 'auto', settings: {}, signal: new AbortController().signal, ...overrides };
}

const userQuestion: Message[] = [{ role: 'user', content: 'Weather in Paris?' }];

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the call to throw');
}

function assertProviderError(error: unknown, expected: { code: string; isRetryable: boolean; statusCode?: number }): ProviderError {
  assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
  assert.equal(error.code, expected.code);
  assert.equal(error.isRetryable, expected.isRetryable);
  if (expected.statusCode !== undefined) assert.equal(error.statusCode, expected.statusCode);
  return error;
}

export function runModelProviderCases(options: ModelProviderCaseOptions): void {
  const { provider } = options;
  const env = (): Record<string, string | undefined> => (options.apiKeyVariable ? { [options.apiKeyVariable]: testKey } : {});
  const createModel = (baseUrl: string, environment = env()): LanguageModel =>
    createModelSource(`${provider}/${modelId}`, { baseUrl, env: environment }).forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });
  const expectedArgumentsText = (text: string): string => (options.argumentsOnWire === 'text' ? text : JSON.stringify(JSON.parse(text)));

  describe(`model provider conformance: ${provider}`, () => {
    let server: VendorFakeServer;
    let model: LanguageModel;
    beforeEach(async () => {
      server = await options.startServer();
      model = createModel(server.baseUrl);
    });
    afterEach(async () => {
      await server.close();
    });

    test('answers plain text with finish reason stop, usage and the raw exchange', async () => {
      server.reply({ type: 'message', text: 'It is sunny.', usage: { inputTokens: 11, outputTokens: 7 } });
      const result = await model.generate(generateRequest(userQuestion));
      assert.equal(model.provider, provider);
      assert.equal(model.modelId, modelId);
      assert.deepEqual(result.message, { role: 'assistant', content: 'It is sunny.', toolCalls: [] });
      assert.equal(result.finishReason, 'stop');
      assert.deepEqual(result.usage, { inputTokens: 11, outputTokens: 7 });
      assert.deepEqual(result.warnings, []);
      assert.equal(server.requests.length, 1);
      assert.ok(JSON.stringify(result.raw.request).includes('Weather in Paris?'));
      assert.ok(JSON.stringify(result.raw.response).includes('It is sunny.'));
      assert.ok(server.requests[0].bodyText.includes('Weather in Paris?'));
      options.assertAuthentication(server.requests[0], options.apiKeyVariable ? testKey : undefined);
    });

    test('maps a length stop to finish reason length', async () => {
      server.reply({ type: 'message', text: 'It is', finish: 'length', usage: { inputTokens: 3, outputTokens: 2 } });
      const result = await model.generate(generateRequest(userQuestion));
      assert.equal(result.finishReason, 'length');
      assert.equal(result.message.content, 'It is');
      assert.deepEqual(result.usage, { inputTokens: 3, outputTokens: 2 });
    });

    test('parses one tool call and declares the tools in the vendor shape', async () => {
      server.reply({ type: 'message', toolCalls: [{ id: 'call_1', name: 'get_weather', argumentsText: '{"city": "Paris", "unit": "c"}' }] });
      const result = await model.generate(generateRequest(userQuestion));
      assert.equal(result.finishReason, 'tool-calls');
      assert.equal(result.message.toolCalls.length, 1);
      const [call] = result.message.toolCalls;
      assert.equal(call.name, 'get_weather');
      assert.deepEqual(call.arguments, { city: 'Paris', unit: 'c' });
      assert.equal(call.argumentsText, expectedArgumentsText('{"city": "Paris", "unit": "c"}'));
      assert.equal(call.parseError, undefined);
      if (options.returnsCallIds) assert.equal(call.id, 'call_1');
      else assert.ok(call.id.length > 0);
      options.assertToolsRequest(server.requests[0].body);
    });

    test('parses several tool calls in one turn, in order, with distinct ids', async () => {
      server.reply({
        type: 'message',
        text: 'Looking up both.',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', argumentsText: '{"city":"Paris"}' },
          { id: 'call_2', name: 'get_time', argumentsText: '{"city":"Paris"}' },
          { id: 'call_3', name: 'get_weather', argumentsText: '{"city":"Rome","unit":"f"}' },
        ],
      });
      const result = await model.generate(generateRequest(userQuestion));
      assert.equal(result.message.content, 'Looking up both.');
      assert.deepEqual(result.message.toolCalls.map((call) => [call.name, call.arguments]), [
        ['get_weather', { city: 'Paris' }], ['get_time', { city: 'Paris' }], ['get_weather', { city: 'Rome', unit: 'f' }],
      ]);
      assert.equal(new Set(result.message.toolCalls.map((call) => call.id)).size, 3);
      if (options.returnsCallIds) assert.deepEqual(result.message.toolCalls.map((call) => call.id), ['call_1', 'call_2', 'call_3']);
      assert.equal(result.finishReason, 'tool-calls');
    });

    test('sends tool calls and their results back in the vendor shape', async () => {
      server.reply({ type: 'message', text: 'It is 18 C; the clock is offline.' });
      const result = await model.generate(generateRequest(toolExchangeMessages));
      assert.equal(result.message.content, 'It is 18 C; the clock is offline.');
      assert.equal(server.requests.length, 1);
      options.assertToolExchangeRequest(server.requests[0].body);
    });

    test('keeps malformed arguments as text with a parse error instead of throwing', async () => {
      server.reply({ type: 'message', toolCalls: [{ id: 'call_1', name: 'get_weather', argumentsText: '{"city": "Par' }] });
      const result = await model.generate(generateRequest(userQuestion));
      const [call] = result.message.toolCalls;
      assert.equal(call.name, 'get_weather');
      assert.equal(call.argumentsText, '{"city": "Par');
      assert.equal(call.arguments, undefined);
      assert.equal(typeof call.parseError, 'string');
    });

    test('maps settings to the vendor fields, warning about the unsupported ones', async () => {
      server.reply({ type: 'message', text: 'ok' });
      const result = await model.generate(generateRequest(userQuestion, { settings: { temperature: 0.5, topP: 0.9, maxOutputTokens: 77, seed: 3, stop: ['END'] } }));
      options.assertSettingsRequest(server.requests[0].body, result.warnings);
    });

    test(options.completion === 'endpoint' ? 'sends completion requests to /v1/completions with the last user message as prompt' : 'answers a completion request as chat with a warning', async () => {
      const messages: Message[] = [{ role: 'system', content: 'ignored' }, { role: 'user', content: 'first' }, { role: 'user', content: 'The capital of France is' }];
      if (options.completion === 'endpoint') {
        server.reply({ type: 'completion', text: ' Paris.', finish: 'stop', usage: { inputTokens: 5, outputTokens: 2 } });
        const result = await model.generate(generateRequest(messages, { tools: [], completion: true }));
        assert.equal(server.requests[0].path, '/v1/completions');
        assert.deepEqual(server.requests[0].body, { model: modelId, prompt: 'The capital of France is' });
        assert.deepEqual(result.message, { role: 'assistant', content: ' Paris.', toolCalls: [] });
        assert.equal(result.finishReason, 'stop');
        assert.deepEqual(result.usage, { inputTokens: 5, outputTokens: 2 });
        assert.deepEqual(result.warnings, []);
      } else {
        server.reply({ type: 'message', text: 'Paris.' });
        const result = await model.generate(generateRequest(messages, { tools: [], completion: true }));
        assert.equal(result.message.content, 'Paris.');
        assert.equal(result.warnings.length, 1);
        assert.match(result.warnings[0].message, /completion/);
      }
    });

    test('429 with Retry-After is a retryable rate limit carrying the delay, and the SDK does not retry', async () => {
      server.reply({ type: 'http-error', status: 429, message: 'Too many requests', headers: { 'retry-after': '7' } });
      const error = assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.rate-limited', isRetryable: true, statusCode: 429 });
      assert.equal(error.retryAfterSeconds, 7);
      assert.match(error.message, new RegExp(`${provider} returned HTTP 429`));
      assert.equal(server.requests.length, 1);
    });

    test('a Retry-After given as an HTTP date is carried as the seconds until that date', async () => {
      const at = new Date(Date.now() + 30_000);
      server.reply({ type: 'http-error', status: 503, message: 'busy', headers: { 'retry-after': at.toUTCString() } });
      const error = assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.server-error', isRetryable: true, statusCode: 503 });
      // The date has whole seconds: between 29 and 30 seconds from now, give or take the request's own time.
      assert.ok(error.retryAfterSeconds !== undefined && error.retryAfterSeconds > 25 && error.retryAfterSeconds <= 30, `retryAfterSeconds ${error.retryAfterSeconds}`);
    });

    test('retry-after-ms is carried in seconds, and wins over Retry-After', async () => {
      server.reply({ type: 'http-error', status: 429, message: 'slow down', headers: { 'retry-after-ms': '250', 'retry-after': '9' } });
      const error = assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.rate-limited', isRetryable: true, statusCode: 429 });
      assert.equal(error.retryAfterSeconds, 0.25);
    });

    for (const status of [500, 502, 503, 504, 529, 408]) {
      test(`HTTP ${status} is a retryable server error, attempted once`, async () => {
        server.reply({ type: 'http-error', status, message: 'upstream failed' });
        assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.server-error', isRetryable: true, statusCode: status });
        assert.equal(server.requests.length, 1);
      });
    }

    test('HTTP 400 is a rejected request, not retryable', async () => {
      server.reply({ type: 'http-error', status: 400, message: 'tools.0: invalid schema' });
      const error = assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.request-rejected', isRetryable: false, statusCode: 400 });
      assert.match(error.message, /400/);
      assert.equal(error.retryAfterSeconds, undefined);
    });

    test('HTTP 401 is not retryable and says which key to check', async () => {
      server.reply({ type: 'http-error', status: 401, message: 'invalid api key' });
      const error = assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.request-rejected', isRetryable: false, statusCode: 401 });
      assert.match(error.message, new RegExp(options.apiKeyVariable ?? 'OPENAI_COMPATIBLE_API_KEY'));
    });

    test('HTTP 404 is not retryable and says to check the model id', async () => {
      server.reply({ type: 'http-error', status: 404, message: 'model not found' });
      const error = assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.request-rejected', isRetryable: false, statusCode: 404 });
      assert.match(error.message, new RegExp(`model id '${modelId}'`));
    });

    test('a body that is not JSON is a retryable invalid response', async () => {
      server.reply({ type: 'raw', status: 200, body: '<html>proxy error</html>', contentType: 'text/html' });
      const error = assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.invalid-response', isRetryable: true });
      // The page's first words, not only a schema's "expected object, received string".
      assert.match(error.message, /the body is (text, not JSON \(it starts "<html>proxy error<\/html>"\)|not valid JSON \(.*<html>)/);
    });

    test('a 200 whose body is an error (as some gateways send) quotes the error', async () => {
      server.reply({ type: 'raw', status: 200, body: JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error' } }) });
      const error = assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.invalid-response', isRetryable: true });
      assert.match(error.message, /the body is an error, not a response: "upstream overloaded"/);
    });

    test('JSON of the wrong shape is a retryable invalid response naming the field', async () => {
      server.reply({ type: 'raw', status: 200, body: JSON.stringify({ candidates: 'none', choices: 'none', content: 'none' }) });
      const error = assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.invalid-response', isRetryable: true });
      assert.match(error.message, /(choices|content|candidates)/);
    });

    test('an empty 200 is a retryable invalid response', async () => {
      server.reply({ type: 'raw', status: 200, body: '' });
      assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.invalid-response', isRetryable: true });
    });

    test('a connection dropped in the middle of the answer\'s body is a retryable connection error', async () => {
      server.reply({ type: 'cut', bodyStart: '{"id":"answer-1","cho' });
      const error = assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.connection', isRetryable: true });
      // It connected: the message says the connection was lost, not that the server could not be reached.
      assert.match(error.message, /lost the connection to .* before its answer was complete/);
      assert.equal(server.requests.length, 1);
    });

    test('a dropped connection is a retryable connection error', async () => {
      server.reply({ type: 'reset' });
      assertProviderError(await rejection(model.generate(generateRequest(userQuestion))), { code: 'provider.connection', isRetryable: true });
    });

    test('a refused connection is a retryable connection error naming the base URL', async () => {
      const port = await findClosedPort();
      const baseUrl = server.baseUrl.replace(/:\d+/, `:${port}`);
      const error = assertProviderError(await rejection(createModel(baseUrl).generate(generateRequest(userQuestion))), { code: 'provider.connection', isRetryable: true });
      assert.ok(error.message.includes(baseUrl));
      assert.match(error.message, /^could not connect to /);
    });

    test('the request timeout reaches the SDK: a provider that never answers is a retryable provider.timeout', async () => {
      server.reply({ type: 'hang' });
      const impatient = createModelSource(`${provider}/${modelId}`, { baseUrl: server.baseUrl, env: env(), requestTimeoutMs: 200 })
        .forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });
      assertProviderError(await rejection(impatient.generate(generateRequest(userQuestion))), { code: 'provider.timeout', isRetryable: true });
      assert.equal(server.requests.length, 1);
    });

    test('a cancelled request rethrows the abort, not a ProviderError', async () => {
      const controller = new AbortController();
      controller.abort();
      server.reply({ type: 'message', text: 'late' });
      const error = await rejection(model.generate(generateRequest(userQuestion, { signal: controller.signal })));
      assert.ok(!(error instanceof ProviderError));
    });

    if (options.apiKeyVariable !== undefined) {
      const variable = options.apiKeyVariable;
      test(`a missing ${variable} is a ConfigError before any request`, () => {
        assert.throws(() => createModel(server.baseUrl, {}), (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.equal(error.code, 'config.missing-api-key');
          assert.match(error.message, new RegExp(variable));
          return true;
        });
        assert.equal(server.requests.length, 0);
      });
    } else {
      test('works without a key, sending no Authorization header, and sends OPENAI_COMPATIBLE_API_KEY when set', async () => {
        server.reply({ type: 'message', text: 'a' }, { type: 'message', text: 'b' });
        const keyless: GenerateResult = await createModel(server.baseUrl, {}).generate(generateRequest(userQuestion));
        assert.equal(keyless.message.content, 'a');
        options.assertAuthentication(server.requests[0], undefined);
        await createModel(server.baseUrl, { OPENAI_COMPATIBLE_API_KEY: testKey }).generate(generateRequest(userQuestion));
        options.assertAuthentication(server.requests[1], testKey);
      });
    }
  });
}

/**
 * ToolForge's own OpenAI request path (src/models/openai/openai-http-client.ts) against a real server on 127.0.0.1
 * that answers each request from a script: what the openai SDK did and users rely on (keys from CRLF .env files, a
 * byte order mark, redirects, every content-encoding a server uses, the server's retry verdict), and what it did not
 * (a query in the base URL, error bodies in other shapes, capped messages, credentials kept out of messages).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, gzipSync } from 'node:zlib';
import { ConfigError, ProviderError } from '../../src/core/errors.ts';
import { backoffDelayMs } from '../../src/models/retry-backoff.ts';
import { providerErrorFromUnknown } from '../../src/models/provider-error-mapping.ts';
import { createModelSource } from '../../src/models/registry.ts';
import type { LanguageModel } from '../../src/models/spec.ts';
import { episodeTask, generateRequest } from '../conformance/model-provider.cases.ts';

type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
type Answer = (response: ServerResponse, seen: Seen) => void;

const completion = JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }] });
const json = (status: number, body: string | Buffer, headers: Record<string, string> = {}): Answer => (response) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(body);
};

describe('the OpenAI request path', () => {
  let server: Server;
  let base = '';
  let script: Answer[] = [];
  const seen: Seen[] = [];
  before(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
        seen.push(entry);
        (script.shift() ?? json(500, '{"error":{"message":"unscripted"}}'))(response, entry);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const answer = (...answers: Answer[]): void => {
    script = answers;
    seen.length = 0;
  };
  const model = (env: Record<string, string> = { OPENAI_API_KEY: 'k' }, baseUrl: string | null = `${base}/v1`): LanguageModel => createModelSource('openai/m', { ...(baseUrl === null ? {} : { baseUrl }), env })
    .forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });
  const ask = async (target: LanguageModel = model()): Promise<string> => (await target.generate(generateRequest([{ role: 'user', content: 'q' }]))).message.content;
  const failure = async (target: LanguageModel = model()): Promise<ProviderError> => {
    try {
      await ask(target);
    } catch (error) {
      assert.ok(error instanceof ProviderError, String(error));
      return error;
    }
    throw new Error('the request did not fail');
  };

  test('a key or organization with a trailing newline (a CRLF .env file) is sent trimmed; a User-Agent is sent', async () => {
    answer(json(200, completion));
    assert.equal(await ask(model({ OPENAI_API_KEY: 'sk-abc\r\n', OPENAI_ORG_ID: 'org-1\r' })), 'hello');
    assert.deepEqual([seen[0].headers.authorization, seen[0].headers['openai-organization']], ['Bearer sk-abc', 'org-1']);
    assert.match(seen[0].headers['user-agent'] ?? '', /^ToolForge/);
  });

  test('a byte order mark before the JSON is read past, as fetch reads it', async () => {
    answer(json(200, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(completion)])));
    assert.equal(await ask(), 'hello');
  });

  test('every content-encoding servers use is decoded: raw deflate under "deflate", and two encodings in turn', async () => {
    answer(json(200, deflateRawSync(completion), { 'content-encoding': 'deflate' }), json(200, brotliCompressSync(gzipSync(completion)), { 'content-encoding': 'gzip, br' }));
    assert.equal(await ask(), 'hello');
    assert.equal(await ask(), 'hello');
  });

  test('redirects are followed once each, by fetch\'s rules: 307 repeats the POST with its body, 303 becomes a GET', async () => {
    const redirect = (status: number, to: string): Answer => (response) => {
      response.writeHead(status, { location: to });
      response.end();
    };
    answer(redirect(307, '/v2/chat/completions'), json(200, completion));
    assert.equal(await ask(), 'hello');
    assert.deepEqual(seen.map((entry) => [entry.method, entry.url]), [['POST', '/v1/chat/completions'], ['POST', '/v2/chat/completions']]);
    assert.equal(seen[1].body, seen[0].body);
    assert.equal(seen[1].headers.authorization, 'Bearer k');
    answer(redirect(303, '/v2/done'), json(200, completion));
    assert.equal(await ask(), 'hello');
    assert.deepEqual(seen.map((entry) => [entry.method, entry.url, entry.body]), [['POST', '/v1/chat/completions', seen[0].body], ['GET', '/v2/done', '']]);
  });

  test('a query in the base URL (?api-version=) stays a query, after the endpoint\'s path', async () => {
    answer(json(200, completion));
    assert.equal(await ask(model(undefined, `${base}/openai/v1/?api-version=2024-10-21`)), 'hello');
    assert.equal(seen[0].url, '/openai/v1/chat/completions?api-version=2024-10-21');
  });

  test('the server\'s retry verdict wins (x-should-retry), 409 and statuses past 599 are retried, and an exhausted quota is not', async () => {
    const cases: [Answer, string, boolean][] = [
      [json(400, '{"error":{"message":"try again"}}', { 'x-should-retry': 'true' }), 'provider.server-error', true],
      [json(500, '{"error":{"message":"broken for good"}}', { 'x-should-retry': 'false' }), 'provider.request-rejected', false],
      [json(429, '{"error":{"message":"You exceeded your current quota"}}', { 'x-should-retry': 'false' }), 'provider.rate-limited', false],
      [json(409, '{"error":{"message":"conflict"}}'), 'provider.server-error', true],
      [json(600, '{"error":{"message":"odd"}}'), 'provider.server-error', true],
    ];
    for (const [reply, code, retryable] of cases) {
      answer(reply);
      const error = await failure();
      assert.deepEqual([error.code, error.isRetryable], [code, retryable], error.message);
    }
  });

  test('error bodies in other shapes keep their words; a long error page is cut in the message', async () => {
    answer(json(400, '{"object":"error","message":"max_tokens is too large"}'), json(422, '{"detail":[{"loc":["body","model"]}]}'), json(502, `<html>${'x'.repeat(100_000)}</html>`, { 'content-type': 'text/html' }));
    assert.match((await failure()).message, /HTTP 400 for model 'm': 400 max_tokens is too large/);
    assert.match((await failure()).message, /HTTP 422 for model 'm': 422 \[\{"loc":\["body","model"\]\}\]/);
    const page = await failure();
    assert.ok(page.message.length < 3_000, `${page.message.length} characters`);
    assert.match(page.message, /\.\.\. \(\d+ more characters\)/);
  });

  test('a user name and password in the base URL are used, and kept out of messages', async () => {
    answer(json(404, '{"error":{"message":"no such model"}}'));
    const error = await failure(model({ OPENAI_API_KEY: 'k' }, `http://user:s3cret@127.0.0.1:${new URL(base).port}/v1`));
    assert.equal(seen[0].headers.authorization, 'Bearer k');
    assert.doesNotMatch(`${error.message} ${error.fix ?? ''}`, /s3cret/);
  });

  test('OPENAI_BASE_URL that is not an http(s) URL is refused naming the variable, before any request', () => {
    for (const value of ['localhost:8000/v1', 'not a url']) {
      assert.throws(() => model({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: value }, null), (error: unknown) => error instanceof ConfigError && /OPENAI_BASE_URL is '.*', which is not an http\(s\) URL/.test(error.message));
    }
  });
});

describe('retry verdicts that need no server', () => {
  test('a certificate Node does not trust is not retried: the same certificate comes back every time', () => {
    const cause = Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    const error = providerErrorFromUnknown(new TypeError('fetch failed', { cause }), { provider: 'openai-compatible', modelId: 'm', apiKeyVariable: undefined, baseUrl: 'https://127.0.0.1:9/v1' });
    assert.equal(error.isRetryable, false);
    assert.match(error.message, /its TLS certificate is not trusted \(self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)\)/);
    assert.match(error.fix ?? '', /NODE_EXTRA_CA_CERTS/);
  });

  test('Retry-After: 0 (or a date gone by) backs off as if none were given, instead of retrying at once', () => {
    const policy = { baseDelayMs: 1000, maxDelayMs: 60_000, random: () => 0 };
    const now = new ProviderError('provider.rate-limited', 'limited', { isRetryable: true, retryAfterSeconds: 0 });
    assert.equal(backoffDelayMs(now, 3, policy), 2000);
    const later = new ProviderError('provider.rate-limited', 'limited', { isRetryable: true, retryAfterSeconds: 1.5 });
    assert.equal(backoffDelayMs(later, 3, policy), 1500);
  });
});

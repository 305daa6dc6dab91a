/**
 * A fake Anthropic Messages API: POST /v1/messages. Like the real one it refuses requests without
 * credentials (this SDK sends `authorization: Bearer`, older ones `x-api-key`) or `anthropic-version`.
 */
import type { FakeHttpResponse } from './fake-http-server.ts';
import { startFakeHttpServer } from './fake-http-server.ts';
import type { FakeReply, VendorFakeServer } from './fake-reply.ts';
import { argumentsOnObjectWire, createReplyQueue, renderCommonReply } from './fake-reply.ts';

export async function startAnthropicFakeServer(): Promise<VendorFakeServer> {
  const queue = createReplyQueue();
  const server = await startFakeHttpServer((request) => {
    if (request.method !== 'POST' || request.path !== '/v1/messages') return anthropicError(404, `Not found: ${request.method} ${request.path}`);
    if (!request.headers['x-api-key'] && !request.headers.authorization) return anthropicError(401, 'x-api-key header is required');
    if (!request.headers['anthropic-version']) return anthropicError(400, 'anthropic-version header is required');
    const reply = queue.next();
    if (reply === undefined) return anthropicError(500, 'fake server: no reply scripted for this request');
    const model = (request.body as { model?: unknown } | undefined)?.model ?? 'unknown';
    return renderCommonReply(reply) ?? renderAnthropicReply(reply, String(model));
  });
  return { baseUrl: server.url, requests: server.requests, reply: queue.push, close: server.close };
}

function renderAnthropicReply(reply: FakeReply, model: string): FakeHttpResponse {
  if (reply.type === 'http-error') return anthropicError(reply.status, reply.message, reply.headers);
  if (reply.type !== 'message') return anthropicError(500, 'fake server: reply does not fit the Messages API');
  const toolCalls = reply.toolCalls ?? [];
  const finish = reply.finish ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop');
  const body = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(reply.text !== undefined ? [{ type: 'text', text: reply.text }] : []),
      ...toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: argumentsOnObjectWire(call.argumentsText) })),
    ],
    stop_reason: { stop: 'end_turn', length: 'max_tokens', 'tool-calls': 'tool_use', 'content-filter': 'refusal' }[finish],
    stop_sequence: null,
    usage: { input_tokens: reply.usage?.inputTokens ?? 0, output_tokens: reply.usage?.outputTokens ?? 0 },
  };
  return { type: 'respond', status: 200, body: JSON.stringify(body) };
}

function anthropicError(status: number, message: string, headers: Record<string, string> = {}): FakeHttpResponse {
  const type = ({ 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 429: 'rate_limit_error', 529: 'overloaded_error' } as Record<number, string>)[status] ?? 'api_error';
  return { type: 'respond', status, headers, body: JSON.stringify({ type: 'error', error: { type, message } }) };
}

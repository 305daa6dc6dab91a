/**
 * A fake Gemini API: POST /v1beta/models/{model}:generateContent with the key in `x-goog-api-key`.
 * Like the real API it sends function calls without ids and with `args` as an object.
 */
import type { FakeHttpResponse } from './fake-http-server.ts';
import { startFakeHttpServer } from './fake-http-server.ts';
import type { FakeReply, VendorFakeServer } from './fake-reply.ts';
import { argumentsOnObjectWire, createReplyQueue, renderCommonReply } from './fake-reply.ts';

export async function startGoogleFakeServer(): Promise<VendorFakeServer> {
  const queue = createReplyQueue();
  const server = await startFakeHttpServer((request) => {
    const match = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(request.path);
    if (request.method !== 'POST' || !match) return googleError(404, `Not found: ${request.method} ${request.path}`);
    if (!request.headers['x-goog-api-key']) return googleError(403, 'Method doesn\'t allow unregistered callers. Please use an API key.');
    const reply = queue.next();
    if (reply === undefined) return googleError(500, 'fake server: no reply scripted for this request');
    return renderCommonReply(reply) ?? renderGoogleReply(reply, decodeURIComponent(match[1]));
  });
  return { baseUrl: server.url, requests: server.requests, reply: queue.push, close: server.close };
}

function renderGoogleReply(reply: FakeReply, model: string): FakeHttpResponse {
  if (reply.type === 'http-error') return googleError(reply.status, reply.message, reply.headers);
  if (reply.type !== 'message') return googleError(500, 'fake server: reply does not fit generateContent');
  const toolCalls = reply.toolCalls ?? [];
  const finish = reply.finish ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop');
  const body = {
    candidates: [{
      content: {
        role: 'model',
        parts: [
          ...(reply.text !== undefined ? [{ text: reply.text }] : []),
          ...toolCalls.map((call) => ({ functionCall: { name: call.name, args: argumentsOnObjectWire(call.argumentsText) } })),
        ],
      },
      // Gemini reports STOP after function calls too.
      finishReason: { stop: 'STOP', 'tool-calls': 'STOP', length: 'MAX_TOKENS', 'content-filter': 'SAFETY' }[finish],
      index: 0,
    }],
    usageMetadata: reply.usage
      ? { promptTokenCount: reply.usage.inputTokens, candidatesTokenCount: reply.usage.outputTokens, totalTokenCount: reply.usage.inputTokens + reply.usage.outputTokens }
      : {},
    modelVersion: model,
  };
  return { type: 'respond', status: 200, body: JSON.stringify(body) };
}

/**
 * Like the real API, a wait is never a Retry-After header: a scripted `retry-after` becomes the body's RetryInfo
 * (a protobuf duration), next to the QuotaFailure a real rate limit names.
 */
function googleError(status: number, message: string, headers: Record<string, string> = {}): FakeHttpResponse {
  const statusName = ({ 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' } as Record<number, string>)[status] ?? 'UNKNOWN';
  // Gemini asks for a wait in seconds in the body's RetryInfo, never a header; any other Retry-After (an HTTP date)
  // is what a proxy in front of it sends, so it stays a header.
  const { 'retry-after': header, ...otherHeaders } = headers;
  const retryAfter = header !== undefined && /^\d+(\.\d+)?$/.test(header) ? header : undefined;
  if (header !== undefined && retryAfter === undefined) otherHeaders['retry-after'] = header;
  const details = retryAfter === undefined ? undefined : [
    { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel' }] },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` },
  ];
  return { type: 'respond', status, headers: otherHeaders, body: JSON.stringify({ error: { code: status, message, status: statusName, ...(details ? { details } : {}) } }) };
}

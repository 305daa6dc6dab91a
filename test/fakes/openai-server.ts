/** A fake OpenAI API: POST /v1/chat/completions and /v1/completions, OpenAI's JSON and error shapes. */
import type { FakeHttpResponse } from './fake-http-server.ts';
import { startFakeHttpServer } from './fake-http-server.ts';
import type { FakeReply, VendorFakeServer } from './fake-reply.ts';
import { createReplyQueue, renderCommonReply } from './fake-reply.ts';

export async function startOpenAIFakeServer(): Promise<VendorFakeServer> {
  const queue = createReplyQueue();
  const server = await startFakeHttpServer((request) => {
    const isChat = request.method === 'POST' && request.path === '/v1/chat/completions';
    const isCompletion = request.method === 'POST' && request.path === '/v1/completions';
    if (!isChat && !isCompletion) return openAIError(404, `Unknown request URL: ${request.method} ${request.path}`);
    const reply = queue.next();
    if (reply === undefined) return openAIError(500, 'fake server: no reply scripted for this request');
    const model = (request.body as { model?: unknown } | undefined)?.model ?? 'unknown';
    return renderCommonReply(reply) ?? renderOpenAIReply(reply, String(model), isCompletion);
  });
  return { baseUrl: `${server.url}/v1`, requests: server.requests, reply: queue.push, close: server.close };
}

function renderOpenAIReply(reply: FakeReply, model: string, isCompletion: boolean): FakeHttpResponse {
  if (reply.type === 'http-error') return openAIError(reply.status, reply.message, reply.headers);
  const usage = 'usage' in reply && reply.usage
    ? { prompt_tokens: reply.usage.inputTokens, completion_tokens: reply.usage.outputTokens, total_tokens: reply.usage.inputTokens + reply.usage.outputTokens }
    : undefined;
  if (reply.type === 'completion') {
    if (!isCompletion) return openAIError(500, 'fake server: a completion was scripted but a chat request came');
    return json(200, { id: 'cmpl-1', object: 'text_completion', created: 0, model, choices: [{ index: 0, text: reply.text, logprobs: null, finish_reason: reply.finish ?? 'stop' }], ...(usage ? { usage } : {}) });
  }
  if (reply.type !== 'message' || isCompletion) return openAIError(500, 'fake server: reply does not fit the endpoint');
  const toolCalls = reply.toolCalls ?? [];
  const finish = reply.finish ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop');
  return json(200, {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{
      index: 0,
      message: {
        role: 'assistant',
        content: reply.text ?? null,
        refusal: null,
        ...(toolCalls.length > 0
          ? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.argumentsText } })) }
          : {}),
      },
      logprobs: null,
      finish_reason: { stop: 'stop', length: 'length', 'tool-calls': 'tool_calls', 'content-filter': 'content_filter' }[finish],
    }],
    ...(usage ? { usage } : {}),
  });
}

function openAIError(status: number, message: string, headers: Record<string, string> = {}): FakeHttpResponse {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { type: 'respond', status, headers, body: JSON.stringify({ error: { message, type, param: null, code: null } }) };
}

function json(status: number, body: unknown): FakeHttpResponse {
  return { type: 'respond', status, body: JSON.stringify(body) };
}

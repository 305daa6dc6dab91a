/**
 * An OpenAI-compatible stand-in for a provider under strain, for the runner's fault tests. It plays a
 * fixed multi-turn policy (one call of the first offered tool per turn for `toolTurns` turns, then a
 * final answer), and can answer 429 once to every new conversation state (like a rate limit hitting
 * random turns), fail each new state once with the next of `providerFaults` in turn, hang without
 * answering, or answer every request 503 (a service that is down).
 */
import type { FakeHttpResponse, RecordedRequest } from './fake-http-server.ts';
import { startFakeHttpServer } from './fake-http-server.ts';

export type ConversationServerBehaviour = 'answer' | 'rate-limit-each-state-once' | 'fault-each-state-once' | 'hang' | 'unavailable';

/** What real providers and the proxies in front of them answer under strain, with the retry cause each must count as. */
export const providerFaults = {
  'rate limit, Retry-After in seconds': 'provider.rate-limited',
  'unavailable, Retry-After as an HTTP date': 'provider.server-error',
  'overloaded (529)': 'provider.server-error',
  'request timeout (408)': 'provider.server-error',
  'server error with an HTML page': 'provider.server-error',
  'bad gateway with a text body': 'provider.server-error',
  'connection reset before the answer': 'provider.connection',
  'connection reset in the middle of the body': 'provider.connection',
  '200 with truncated JSON': 'provider.invalid-response',
  '200 with no choices': 'provider.invalid-response',
  '200 with an empty body': 'provider.invalid-response',
  'no answer at all (hang)': 'provider.timeout',
} as const;
export type ProviderFault = keyof typeof providerFaults;
/** Seconds asked for by the 429 fault. */
export const faultRetryAfterSeconds = 7;
/** Seconds ahead of now of the 503 fault's Retry-After date. */
export const faultRetryAfterDateSeconds = 5;

function faultResponse(fault: ProviderFault): FakeHttpResponse {
  const error = (message: string): string => JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } });
  switch (fault) {
    case 'rate limit, Retry-After in seconds':
      return { type: 'respond', status: 429, headers: { 'retry-after': String(faultRetryAfterSeconds) }, body: error('Rate limit reached') };
    case 'unavailable, Retry-After as an HTTP date':
      return { type: 'respond', status: 503, headers: { 'retry-after': new Date(Date.now() + faultRetryAfterDateSeconds * 1000).toUTCString() }, body: error('Busy') };
    case 'overloaded (529)': return { type: 'respond', status: 529, body: error('Overloaded') };
    case 'request timeout (408)': return { type: 'respond', status: 408, body: '' };
    case 'server error with an HTML page':
      return { type: 'respond', status: 500, headers: { 'content-type': 'text/html' }, body: '<html><body><h1>500 Internal Server Error</h1></body></html>' };
    case 'bad gateway with a text body': return { type: 'respond', status: 502, headers: { 'content-type': 'text/plain' }, body: 'Bad Gateway' };
    case 'connection reset before the answer': return { type: 'reset' };
    case 'connection reset in the middle of the body': return { type: 'cut', status: 200, bodyStart: '{"id":"chatcmpl-1","choices":[{"ind' };
    case '200 with truncated JSON': return { type: 'respond', status: 200, body: '{"id": "chatcmpl-1", "choices": [' };
    case '200 with no choices': return { type: 'respond', status: 200, body: '{"id":"chatcmpl-1","object":"chat.completion"}' };
    case '200 with an empty body': return { type: 'respond', status: 200, body: '' };
    case 'no answer at all (hang)': return { type: 'hang' };
  }
}

export type ConversationServer = {
  /** What to pass as --base-url. */
  baseUrl: string;
  requests: RecordedRequest[];
  setBehaviour(behaviour: ConversationServerBehaviour): void;
  /** How many times each conversation state (request body) got a 200: above 1 means a turn was replayed. */
  answeredStates: Map<string, number>;
  /** 429s sent. */
  rateLimited(): number;
  /** Faults sent by 'fault-each-state-once', by kind. */
  faultsSent: Map<ProviderFault, number>;
  close(): Promise<void>;
};

type ChatBody = { messages?: { role: string }[]; tools?: { function: { name: string } }[] };

export async function startConversationServer(options: { toolTurns: number; retryAfterMs?: number }): Promise<ConversationServer> {
  let behaviour: ConversationServerBehaviour = 'answer';
  let rateLimited = 0;
  const faultsSent = new Map<ProviderFault, number>();
  const faultCycle = Object.keys(providerFaults) as ProviderFault[];
  const seenStates = new Set<string>();
  const answeredStates = new Map<string, number>();
  const server = await startFakeHttpServer((request) => {
    if (behaviour === 'hang') return { type: 'hang' };
    if (behaviour === 'unavailable') {
      return { type: 'respond', status: 503, body: JSON.stringify({ error: { message: 'The service is unavailable', type: 'server_error', param: null, code: null } }) };
    }
    const state = request.bodyText;
    if (behaviour === 'rate-limit-each-state-once' && !seenStates.has(state)) {
      seenStates.add(state);
      rateLimited += 1;
      return {
        type: 'respond', status: 429, headers: { 'retry-after-ms': String(options.retryAfterMs ?? 1) },
        body: JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit_exceeded', param: null, code: null } }),
      };
    }
    if (behaviour === 'fault-each-state-once' && !seenStates.has(state)) {
      seenStates.add(state);
      const fault = faultCycle[[...faultsSent.values()].reduce((sum, count) => sum + count, 0) % faultCycle.length]!;
      faultsSent.set(fault, (faultsSent.get(fault) ?? 0) + 1);
      return faultResponse(fault);
    }
    answeredStates.set(state, (answeredStates.get(state) ?? 0) + 1);
    const body = request.body as ChatBody;
    const turn = (body.messages ?? []).filter((message) => message.role === 'assistant').length;
    const tool = body.tools?.[0]?.function.name;
    const message = tool !== undefined && turn < options.toolTurns
      ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name: tool, arguments: '{}' } }] }
      : { role: 'assistant', content: 'done' };
    return {
      type: 'respond', status: 200,
      body: JSON.stringify({
        id: `chatcmpl-${turn}`, object: 'chat.completion', created: 0, model: 'stand-in',
        choices: [{ index: 0, message, logprobs: null, finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
      }),
    };
  });
  return {
    baseUrl: `${server.url}/v1`,
    requests: server.requests,
    setBehaviour: (value) => { behaviour = value; },
    answeredStates,
    rateLimited: () => rateLimited,
    faultsSent,
    close: server.close,
  };
}

/**
 * An OpenAI-compatible stand-in for a provider under strain, for the runner's fault tests. It plays a
 * fixed multi-turn policy (one call of the first offered tool per turn for `toolTurns` turns, then a
 * final answer), and can answer 429 once to every new conversation state (like a rate limit hitting
 * random turns), hang without answering, or answer every request 503 (a service that is down).
 */
import type { RecordedRequest } from './fake-http-server.ts';
import { startFakeHttpServer } from './fake-http-server.ts';

export type ConversationServerBehaviour = 'answer' | 'rate-limit-each-state-once' | 'hang' | 'unavailable';

export type ConversationServer = {
  /** What to pass as --base-url. */
  baseUrl: string;
  requests: RecordedRequest[];
  setBehaviour(behaviour: ConversationServerBehaviour): void;
  /** How many times each conversation state (request body) got a 200: above 1 means a turn was replayed. */
  answeredStates: Map<string, number>;
  /** 429s sent. */
  rateLimited(): number;
  close(): Promise<void>;
};

type ChatBody = { messages?: { role: string }[]; tools?: { function: { name: string } }[] };

export async function startConversationServer(options: { toolTurns: number; retryAfterMs?: number }): Promise<ConversationServer> {
  let behaviour: ConversationServerBehaviour = 'answer';
  let rateLimited = 0;
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
    close: server.close,
  };
}

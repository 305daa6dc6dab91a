/**
 * What a test scripts a fake vendor server to answer, in vendor-neutral terms. Each vendor fake
 * renders it in that vendor's real wire format.
 */
import type { FakeHttpResponse, FakeHttpServer, RecordedRequest } from './fake-http-server.ts';

export type FakeToolCall = {
  id: string;
  name: string;
  /** The argument text; vendors whose wire carries objects send it parsed, or as a string when it does not parse. */
  argumentsText: string;
};

export type FakeReply =
  | {
    type: 'message';
    text?: string;
    toolCalls?: FakeToolCall[];
    /** Default: 'tool-calls' when there are calls, else 'stop'. */
    finish?: 'stop' | 'length' | 'tool-calls' | 'content-filter';
    usage?: { inputTokens: number; outputTokens: number };
  }
  /** A legacy text completion (OpenAI /v1/completions only). */
  | { type: 'completion'; text: string; finish?: 'stop' | 'length'; usage?: { inputTokens: number; outputTokens: number } }
  | { type: 'http-error'; status: number; message: string; headers?: Record<string, string> }
  /** Any bytes, for invalid-response tests. */
  | { type: 'raw'; status: number; body: string; contentType?: string; headers?: Record<string, string> }
  | { type: 'reset' }
  /** A 200 whose body stops part way and whose connection then drops. */
  | { type: 'cut'; bodyStart: string }
  /** Never answer. */
  | { type: 'hang' };

export type VendorFakeServer = {
  /** What to pass as the model's base URL. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queue replies, answered in order; an unscripted request gets a 500 naming the problem. */
  reply(...replies: FakeReply[]): void;
  close(): Promise<void>;
};

/** The common answers every vendor renders the same way. */
export function renderCommonReply(reply: FakeReply): FakeHttpResponse | undefined {
  if (reply.type === 'raw') return { type: 'respond', status: reply.status, headers: { 'content-type': reply.contentType ?? 'application/json', ...reply.headers }, body: reply.body };
  if (reply.type === 'reset') return { type: 'reset' };
  if (reply.type === 'cut') return { type: 'cut', status: 200, bodyStart: reply.bodyStart };
  if (reply.type === 'hang') return { type: 'hang' };
  return undefined;
}

/** Parses argument text for wires that carry objects; unparsable text stays a string. */
export function argumentsOnObjectWire(argumentsText: string): unknown {
  try {
    const value: unknown = JSON.parse(argumentsText);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : argumentsText;
  } catch {
    return argumentsText;
  }
}

export function createReplyQueue(): { push(...replies: FakeReply[]): void; next(): FakeReply | undefined } {
  const queue: FakeReply[] = [];
  return { push: (...replies) => queue.push(...replies), next: () => queue.shift() };
}

export type { FakeHttpServer, RecordedRequest };

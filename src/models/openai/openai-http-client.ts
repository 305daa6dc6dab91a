/**
 * The OpenAI HTTP API as ToolForge calls it: one JSON POST, its whole JSON answer. Not the openai SDK: its request
 * path (header building, logging, retries kept off, a WHATWG Response per answer) cost ~0.55 ms of CPU per request
 * on these machines against ~0.13 ms for the same exchange here (measured, 4,096 requests at 256 in flight), and a
 * run with hundreds of requests in flight is bound by exactly that. What the SDK does that ToolForge relies on is
 * done the same way: the URL (base URL + path), the headers (Bearer key, OpenAI-Organization and OpenAI-Project),
 * an answer read as JSON when its content type says so and as text otherwise, and an HTTP error as an error with
 * `status`, `headers` and the SDK's message (`429 <the body's error.message>`), which provider-error-mapping.ts
 * classifies as it always has.
 */
import { httpExchange, nodeHttpFetch } from '../node-http-fetch.ts';

export type OpenAIConnection = {
  /** e.g. https://api.openai.com/v1 */
  baseUrl: string;
  /** Sent with every request (authorization, organization, project); lower-case names. */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
};

/** An HTTP error answer: what provider-error-mapping.ts reads (`status`, `headers`, the message). */
export class OpenAIStatusError extends Error {
  override readonly name = 'OpenAIStatusError';
  readonly status: number;
  readonly headers: Headers;
  /** The body's `error` object, when it had one. */
  readonly error: unknown;

  constructor(status: number, headers: Headers, bodyText: string) {
    const body = parseJsonOrUndefined(bodyText);
    const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
    super(statusMessage(status, error, body === undefined ? bodyText : undefined));
    this.status = status;
    this.headers = headers;
    this.error = error;
  }
}

/** The SDK's wording: `<status> <error.message>`, else the error object or the text as sent, else "(no body)". */
function statusMessage(status: number, error: unknown, text: string | undefined): string {
  const message = typeof error === 'object' && error !== null && (error as { message?: unknown }).message
    ? (error as { message: unknown }).message : undefined;
  const detail = message !== undefined ? (typeof message === 'string' ? message : JSON.stringify(message))
    : error ? JSON.stringify(error) : text;
  return detail ? `${status} ${detail}` : `${status} status code (no body)`;
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** POSTs `body` as JSON to `path` under the base URL; the answer's JSON (or its text, when it is not JSON). */
export async function postOpenAI(connection: OpenAIConnection, path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
  const base = connection.baseUrl;
  const url = new URL(base.endsWith('/') && path.startsWith('/') ? base + path.slice(1) : base + path);
  const headers = { ...connection.headers, 'content-type': 'application/json', accept: 'application/json' };
  const text = JSON.stringify(body);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return readFetched(await fetch(url, { method: 'POST', headers, body: text, signal }));
  const answer = await httpExchange(url, 'POST', headers, text, signal, { timeoutMs: connection.timeoutMs });
  // A redirect: fetch's rules (a 307 keeps the POST, a 301 turns it into a GET) are fetch's to apply.
  if (answer === 'redirect') return readFetched(await nodeHttpFetch(url, { method: 'POST', headers, body: text, signal }));
  const contentType = answer.headers['content-type'];
  const bodyText = answer.body.toString('utf8');
  if (answer.status < 200 || answer.status > 299) throw new OpenAIStatusError(answer.status, headersOf(answer.rawHeaders), bodyText);
  return readAnswer(answer.status, contentType, answer.headers['content-length'], bodyText);
}

async function readFetched(response: Response): Promise<unknown> {
  const bodyText = await response.text();
  if (!response.ok) throw new OpenAIStatusError(response.status, response.headers, bodyText);
  return readAnswer(response.status, response.headers.get('content-type') ?? undefined, response.headers.get('content-length') ?? undefined, bodyText);
}

/** JSON when the content type is JSON (a bad body throws the parser's SyntaxError), else the text; nothing for 204. */
function readAnswer(status: number, contentType: string | undefined, contentLength: string | undefined, bodyText: string): unknown {
  if (status === 204) return null;
  const mediaType = contentType?.split(';')[0]?.trim();
  const isJson = mediaType !== undefined && (mediaType.includes('application/json') || mediaType.endsWith('+json'));
  if (!isJson) return bodyText;
  if (contentLength === '0') return undefined;
  return JSON.parse(bodyText);
}

function headersOf(rawHeaders: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index < rawHeaders.length; index += 2) headers.append(rawHeaders[index], rawHeaders[index + 1]);
  return headers;
}

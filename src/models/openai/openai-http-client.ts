/**
 * The OpenAI HTTP API as ToolForge calls it: one JSON POST, its whole JSON answer. Not the openai SDK: its request
 * path (header building, logging, retries kept off, a WHATWG Response per answer) cost ~0.55 ms of CPU per request
 * on these machines against ~0.13 ms for the same exchange here (measured, 4,096 requests at 256 in flight), and a
 * run with hundreds of requests in flight is bound by exactly that. What the SDK does that ToolForge relies on is
 * done the same way: the URL (base URL + path; a query of the base URL is kept), the headers (Bearer key,
 * OpenAI-Organization and OpenAI-Project, a User-Agent), redirects followed by fetch's rules, an answer read as JSON
 * when its content type says so (a byte order mark dropped) and as text otherwise, and an HTTP error as an error with
 * `status`, `headers` and the SDK's message (`429 <the body's error.message>`, capped as every provider's error text is), which
 * provider-error-mapping.ts classifies as it always has.
 */
import { headersFromRaw, headerValue, httpExchange } from '../node-http-fetch.ts';
import { cappedDetail } from '../provider-error-mapping.ts';

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
    super(statusMessage(status, error, body === undefined ? bodyText : undefined, body));
    this.status = status;
    this.headers = headers;
    this.error = error;
  }
}

/**
 * The SDK's wording: `<status> <error.message>`, else the error object, else the text as sent, else "(no body)". Servers
 * that answer in other shapes (vLLM's `{"object": "error", "message"}`, FastAPI's `{"detail"}`) keep their words too.
 */
function statusMessage(status: number, error: unknown, text: string | undefined, body: unknown): string {
  const message = typeof error === 'object' && error !== null && (error as { message?: unknown }).message
    ? (error as { message: unknown }).message : undefined;
  const detail = message !== undefined ? (typeof message === 'string' ? message : JSON.stringify(message))
    : error ? JSON.stringify(error) : text ?? otherShapeDetail(body);
  return detail ? `${status} ${cappedDetail(detail)}` : `${status} status code (no body)`;
}

/** What an error body in another shape says: its message or detail, else the body itself (not an empty object). */
function otherShapeDetail(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return body === undefined || body === null ? undefined : JSON.stringify(body);
  const { message, detail } = body as { message?: unknown; detail?: unknown };
  const said = message ?? detail;
  if (said !== undefined && said !== null) return typeof said === 'string' ? said : JSON.stringify(said);
  return Object.keys(body).length > 0 ? JSON.stringify(body) : undefined;
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Redirects followed per request, as fetch follows them. */
const mostRedirects = 20;

/** POSTs `body` as JSON to `path` under the base URL; the answer's JSON (or its text, when it is not JSON). */
export async function postOpenAI(connection: OpenAIConnection, path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
  let url = endpointUrl(connection.baseUrl, path);
  let method = 'POST';
  let text: string | undefined = JSON.stringify(body);
  let headers: Record<string, string> = { ...connection.headers, 'user-agent': userAgent, 'content-type': 'application/json', accept: 'application/json' };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return readFetched(await fetch(url, { method, headers, body: text, signal }));
  for (let redirects = 0; ; redirects += 1) {
    const answer = await httpExchange(url, method, { ...headers }, text, signal, { followRedirects: false, timeoutMs: connection.timeoutMs });
    if (answer === 'redirect') throw new Error('unreachable: redirects are not followed by the exchange');
    const location = redirectStatuses.has(answer.status) ? headerValue(answer.rawHeaders, 'location') : undefined;
    if (location === undefined) {
      const bodyText = stripByteOrderMark(answer.body.toString('utf8'));
      if (answer.status < 200 || answer.status > 299) throw new OpenAIStatusError(answer.status, headersFromRaw(answer.rawHeaders), bodyText);
      return readAnswer(answer.status, headerValue(answer.rawHeaders, 'content-type'), headerValue(answer.rawHeaders, 'content-length'), bodyText);
    }
    // fetch's rules: 307 and 308 repeat the request; 301 and 302 after a POST, and 303, turn it into a GET without a
    // body; credentials are not sent to another origin.
    if (redirects === mostRedirects) throw new TypeError('fetch failed', { cause: new Error(`redirect count exceeded (${mostRedirects}), last to ${location}`) });
    const next = new URL(location, url);
    if (answer.status !== 307 && answer.status !== 308) {
      method = 'GET';
      text = undefined;
      const { 'content-type': _contentType, ...rest } = headers;
      headers = rest;
    }
    if (next.origin !== url.origin) {
      const { authorization: _authorization, ...rest } = headers;
      headers = rest;
    }
    url = next;
  }
}

/** The endpoint under the base URL: its path joined to the base's, any query of the base (`?api-version=`) kept. */
function endpointUrl(base: string, path: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.hash = '';
  return url;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** Sent with every request, as the SDK sends its own: some gateways refuse a request without one. */
const userAgent = `ToolForge (node ${process.versions.node})`;

/** A UTF-8 byte order mark before the JSON: fetch's text() drops it, and so does this. */
function stripByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

async function readFetched(response: Response): Promise<unknown> {
  const bodyText = stripByteOrderMark(await response.text());
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

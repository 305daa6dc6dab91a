/**
 * The `fetch` the vendor SDKs are given: one buffered request over node:http/https on keep-alive agents.
 *
 * Why not the global fetch: undici's fetch costs ~0.25 ms of CPU per request on these machines (request
 * cloning, header lists, WHATWG streams for every body) against ~0.1 ms here, and a run with hundreds of
 * requests in flight is bound by exactly that. The SDKs only send JSON bodies and, as ToolForge uses them,
 * read whole responses, so buffering loses nothing. What fetch does and this does not (a body that is a
 * stream or form, a Request object, redirects) is handed to the global fetch unchanged, so the semantics
 * are fetch's in every case; failures look like fetch's (a TypeError "fetch failed" with the socket error as
 * its cause, the signal's reason on abort), so the SDKs classify them as they always have.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { brotliDecompress, gunzip, inflate, inflateRaw } from 'node:zlib';

// Every idle connection is kept (Node keeps 256 by default, and a free one is unref'd, so none holds the process
// open): at --concurrency 2000 each wave of requests after the first opened ~1,750 new connections, each a TLS
// handshake against a real provider.
const keptConnections = { keepAlive: true, maxFreeSockets: Infinity } as const;
const httpAgent = new HttpAgent(keptConnections);
const httpsAgent = new HttpsAgent(keptConnections);

/** Statuses whose response has no body (fetch's null body statuses). */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

type Decoder = (input: Buffer, callback: (error: Error | null, result: Buffer) => void) => void;

/** deflate as fetch reads it: the zlib format, or raw deflate data from servers that send it under that name. */
const inflateEither: Decoder = (input, callback) => {
  // A zlib stream starts with a header whose first byte's low nibble is 8 (the deflate method).
  if (input.length > 0 && (input[0] & 0x0f) === 8) inflate(input, callback);
  else inflateRaw(input, callback);
};

const decoders: Record<string, Decoder> = {
  gzip: gunzip,
  'x-gzip': gunzip,
  deflate: inflateEither,
  br: brotliDecompress,
};

export async function nodeHttpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const body = init.body;
  if (input instanceof Request || !(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)) {
    return fetch(input, init);
  }
  const url = typeof input === 'string' ? new URL(input) : input;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init);
  const method = (init.method ?? 'GET').toUpperCase();
  const exchanged = await httpExchange(url, method, plainHeaders(init.headers), body ?? undefined, init.signal ?? undefined, { followRedirects: init.redirect !== 'manual' });
  // fetch's redirect rules (method changes, header stripping, limits) are fetch's to apply.
  if (exchanged === 'redirect') return fetch(input, init);
  const { status, statusMessage, rawHeaders, body: decoded } = exchanged;
  if (status > 599) throw new TypeError('fetch failed', { cause: new Error(`the server answered with HTTP status ${status}, which fetch cannot represent`) });
  const responseHeaders = headersFromRaw(rawHeaders);
  const hasBody = method !== 'HEAD' && !nullBodyStatuses.has(status);
  // A view, not a copy: Response takes any ArrayBufferView.
  const view = new Uint8Array(decoded.buffer as ArrayBuffer, decoded.byteOffset, decoded.byteLength);
  return new Response(hasBody ? view : null, { status, statusText: statusMessage, headers: responseHeaders });
}

/** A whole HTTP answer, its body read and decoded. */
export type HttpExchange = { status: number; statusMessage: string; headers: IncomingHttpHeaders; rawHeaders: string[]; body: Buffer };

/**
 * One buffered request and its whole, decoded answer, with fetch's failures (see the module comment). 'redirect': the
 * answer is a redirect with a location, left for fetch to follow (unless `followRedirects` is false: then it is the
 * answer). `timeoutMs`: the request is dropped after it with a TimeoutError as the cause, as fetch's timeout signal does.
 */
export async function httpExchange(
  url: URL, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined, signal: AbortSignal | undefined,
  options: { followRedirects?: boolean; timeoutMs?: number } = {},
): Promise<HttpExchange | 'redirect'> {
  signal?.throwIfAborted();
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  const response = await send(url, method, headers, body, signal, options.timeoutMs);
  const status = response.statusCode ?? 0;
  if (redirectStatuses.has(status) && response.headers.location !== undefined && options.followRedirects !== false) {
    response.resume();
    return 'redirect';
  }
  // A 1xx final answer cannot be read; a status past 599 is an answer (a server error) even if fetch cannot hold it.
  if (status < 200 || status > 999) {
    response.destroy();
    throw new TypeError('fetch failed', { cause: new Error(`the server answered with HTTP status ${status}, which is not an HTTP answer`) });
  }
  const encoded = await readBody(response, signal);
  // Encodings are listed in the order they were applied ("gzip, br": gzip first), so they are undone from the last.
  const encodings = (headerValue(response.rawHeaders, 'content-encoding') ?? '').split(',').map((each) => each.trim().toLowerCase()).filter((each) => each !== '' && each !== 'identity');
  let decoded = encoded;
  if (encoded.length > 0 && encodings.every((encoding) => encoding in decoders)) {
    for (const encoding of encodings.reverse()) decoded = await decode(decoded, encoding);
  }
  return { status, statusMessage: response.statusMessage ?? '', headers: response.headers, rawHeaders: response.rawHeaders, body: decoded };
}

/** Node's raw header list (name, value, name, value...) as fetch's Headers: every occurrence kept, as fetch keeps them. */
export function headersFromRaw(rawHeaders: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index < rawHeaders.length; index += 2) headers.append(rawHeaders[index], rawHeaders[index + 1]);
  return headers;
}

/** A header's value as fetch reads it: every occurrence, joined by ", " (node keeps only the first of some). */
export function headerValue(rawHeaders: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index].toLowerCase() === name) value = value === undefined ? rawHeaders[index + 1] : `${value}, ${rawHeaders[index + 1]}`;
  }
  return value;
}

function plainHeaders(headers: HeadersInit | undefined): Record<string, string> {
  const plain: Record<string, string> = {};
  if (headers === undefined) return plain;
  const entries = headers instanceof Headers || Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [name, value] of entries) plain[name.toLowerCase()] = value;
  return plain;
}

function send(
  url: URL, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined, signal: AbortSignal | undefined, timeoutMs: number | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const options = { method, headers, agent: url.protocol === 'https:' ? httpsAgent : httpAgent };
    const request = url.protocol === 'https:' ? httpsRequest(url, options) : httpRequest(url, options);
    // Until the whole answer is read: a server that sends its headers and then stalls is timed out too.
    let answer: IncomingMessage | undefined;
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
      (answer ?? request).destroy(new DOMException(`the request timed out after ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs);
    // The socket keeps the process alive while the request is open, not this timer.
    timer?.unref();
    const onAbort = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      request.destroy();
      reject(abortReason(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('response', (response) => {
      answer = response;
      signal?.removeEventListener('abort', onAbort);
      if (timer !== undefined) response.once('close', () => clearTimeout(timer));
      resolve(response);
    });
    request.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      if (timer !== undefined) clearTimeout(timer);
      reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: error }));
    });
    request.end(body);
  });
}

function readBody(response: IncomingMessage, signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      response.destroy();
      reject(abortReason(signal));
      return;
    }
    const chunks: Buffer[] = [];
    const onAbort = (): void => {
      response.destroy();
      reject(abortReason(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => {
      signal?.removeEventListener('abort', onAbort);
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    // A connection dropped mid-body ('aborted' then 'error' on the response).
    response.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: error }));
    });
  });
}

/**
 * A body that came back whole but does not decode as its content-encoding says: the server's fault, not the
 * connection's, so the error mapping reports an invalid response (provider-error-mapping.ts), not a connection error.
 */
export class UndecodableBodyError extends Error {
  override readonly name = 'UndecodableBodyError';
}

function decode(encoded: Buffer, encoding: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    decoders[encoding](encoded, (error, result) => (error
      ? reject(new TypeError('fetch failed', { cause: new UndecodableBodyError(`the body is marked content-encoding ${encoding} but does not decode (${error.message})`, { cause: error }) }))
      : resolve(result)));
  });
}

function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

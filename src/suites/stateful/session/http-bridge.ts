/**
 * The host side of the sandbox's HTTP clients for a REST scenario: a request the program sends to the scenario's
 * public base URL is forwarded to the real server on 127.0.0.1; anything else (another host, another port, another
 * scheme, the real server's own address) fails in the program as a network error. Programs are rendered against
 * a fixed public base URL so that tasks do not depend on the port the server happens to get.
 */
import type { JsonValue } from '../../../core/json.ts';
import { nodeHttpFetch } from '../../../models/node-http-fetch.ts';
import type { HttpResponder, HttpResponse, RecordedRequest } from '../../../sandbox/spec.ts';

export type HttpBridgeOptions = {
  /** The origin programs use, e.g. `http://localhost:8080`. */
  publicOrigin: string;
  /** Where the server really listens, e.g. `http://127.0.0.1:41234`. */
  targetOrigin: string;
};

/** Thrown for a refused request: not a ToolForgeError, so the program sees a network error. */
export class RefusedRequestError extends Error {
  override name = 'NetworkError';
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function queryString(params: Record<string, JsonValue>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    search.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

function requestBody(request: RecordedRequest): { body?: string; contentType?: string } {
  if (request.bodyType === 'none' || request.data === undefined) return {};
  // An undecodable body goes through as written, so the server answers it (400) as it would the real one.
  if (request.dataParseError !== undefined && typeof request.data === 'string') return { body: request.data, contentType: 'text/plain' };
  if (request.bodyType === 'form' || request.bodyType === 'multipart') {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(request.data as Record<string, JsonValue>)) {
      search.append(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
    return { body: search.toString(), contentType: 'application/x-www-form-urlencoded' };
  }
  return { body: JSON.stringify(request.data), contentType: 'application/json' };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function createHttpBridge(options: HttpBridgeOptions): HttpResponder {
  const allowed = originOf(options.publicOrigin);
  if (!allowed) throw new TypeError(`publicOrigin ${options.publicOrigin} is not a URL`);
  return async (request: RecordedRequest): Promise<HttpResponse> => {
    const origin = originOf(request.url);
    if (origin !== allowed) {
      throw new RefusedRequestError(`connect ECONNREFUSED: only ${allowed} is reachable from this program (got ${origin ?? request.url})`);
    }
    const path = new URL(request.url).pathname.split('/').map((segment) => encodeURIComponent(decodeSegment(segment))).join('/');
    const { body, contentType } = requestBody(request);
    // Not the global fetch: its dispatcher keeps a connection pool for every origin it has reached, and every episode
    // serves on a port of its own (~35 KB held per episode, for the life of the process).
    const response = await nodeHttpFetch(`${options.targetOrigin}${path}${queryString(request.params)}`, {
      method: request.method.toUpperCase(),
      headers: contentType ? { 'content-type': contentType } : {},
      body: ['get', 'head'].includes(request.method) ? undefined : body,
    });
    const text = await response.text();
    const headers: Record<string, string> = {};
    const type = response.headers.get('content-type');
    if (type) headers['content-type'] = type;
    if (text === '') return { status: response.status, headers, data: '' };
    if (type?.includes('application/json')) return { status: response.status, headers, data: JSON.parse(text) as JsonValue };
    return { status: response.status, headers, data: text };
  };
}

/** The responder of scenarios without an HTTP service: every request fails as a network error. */
export const refuseAllRequests: HttpResponder = (request) => {
  throw new RefusedRequestError(`connect ECONNREFUSED: this program has no network access (got ${request.url})`);
};

/**
 * The Session Service REST API (Swagger in shared/data/stategen; semantics in seeds-reference 6.5) as a real HTTP
 * server on 127.0.0.1 over a SessionStore. Errors answer `{status, error, message, path}` like Spring Boot does
 * (without the timestamp, to keep answers deterministic).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../core/json.ts';
import { SessionServiceError, SessionStore } from './session-store.ts';

export type SessionServer = {
  /** `http://127.0.0.1:<port>`: where the server really listens. */
  origin: string;
  store: SessionStore;
  close(): Promise<void>;
};

const reasonPhrases: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict' };
const maximumBodyBytes = 1024 * 1024;

export async function startSessionServer(store = new SessionStore()): Promise<SessionServer> {
  const server = createServer((request, response) => {
    handle(store, request, response).catch((error: unknown) => {
      send(response, 500, { status: 500, error: 'Internal Server Error', message: String(error), path: request.url ?? '' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    store,
    close: () => closeServer(server).finally(() => store.close()),
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function send(response: ServerResponse, status: number, body?: JsonValue): void {
  if (body === undefined) {
    response.writeHead(status, { 'content-length': '0' }).end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maximumBodyBytes) throw new SessionServiceError(400, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readJsonObject(request: IncomingMessage, what: string): Promise<JsonObject> {
  const text = await readBody(request);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SessionServiceError(400, `${what} is not valid JSON`);
  }
  if (!isJsonObject(value)) throw new SessionServiceError(400, `${what} must be a JSON object`);
  return value;
}

async function handle(store: SessionStore, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const method = (request.method ?? 'GET').toUpperCase();
  const segments = url.pathname.split('/').filter((segment) => segment !== '').map((segment) => decodeURIComponent(segment));
  const fail = (status: number, message: string): void => {
    send(response, status, { status, error: reasonPhrases[status] ?? 'Error', message, path: url.pathname });
  };
  try {
    if (segments.length === 1 && segments[0] === 'info') {
      if (method !== 'GET') return fail(405, `method ${method} not allowed on /info`);
      return send(response, 200, { name: 'session-service', version: '0.1.0-toolforge' });
    }
    if (segments.length < 4 || segments[0] !== 'api' || segments[1] !== 'sessions' || segments.length > 6) {
      return fail(404, `no endpoint at ${url.pathname}`);
    }
    const [source, type, third, fourth] = segments.slice(2);
    if (segments.length === 4) {
      if (method === 'GET') return send(response, 200, store.list(source, type));
      if (method === 'POST') {
        const data = await readJsonObject(request, 'session data');
        return send(response, 200, { id: store.add(source, type, data) });
      }
      return fail(405, `method ${method} not allowed on ${url.pathname}`);
    }
    if (third === 'query' && segments.length === 5 && method === 'GET') {
      const field = url.searchParams.get('field');
      const value = url.searchParams.get('value');
      if (field === null || value === null) return fail(400, 'query parameters field and value are required');
      return send(response, 200, store.find(source, type, { [field]: value }));
    }
    if (third === 'query' && fourth === 'fetch' && segments.length === 6) {
      if (method !== 'POST') return fail(405, `method ${method} not allowed on ${url.pathname}`);
      const filter = await readJsonObject(request, 'query filter');
      for (const [field, value] of Object.entries(filter)) {
        if (field.startsWith('$') || (isJsonObject(value) && Object.keys(value).some((key) => key.startsWith('$')))) {
          return fail(400, `unsupported query operator in "${field}": only field equality is supported`);
        }
      }
      return send(response, 200, store.find(source, type, filter));
    }
    if (segments.length !== 5) return fail(404, `no endpoint at ${url.pathname}`);
    const id = third;
    if (method === 'GET') return send(response, 200, store.get(source, type, id));
    if (method === 'PUT') {
      const data = await readJsonObject(request, 'session data');
      store.update(source, type, id, data);
      return send(response, 200);
    }
    if (method === 'DELETE') {
      store.delete(source, type, id);
      return send(response, 200);
    }
    return fail(405, `method ${method} not allowed on ${url.pathname}`);
  } catch (error) {
    if (error instanceof SessionServiceError) return fail(error.status, error.message);
    throw error;
  }
}

/**
 * A real HTTP server on 127.0.0.1 (port 0) that records every request and answers from a script.
 * The vendor fakes (openai-server.ts, anthropic-server.ts, google-server.ts) render replies in their
 * vendor's wire format on top of it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RecordedRequest = { method: string; path: string; headers: IncomingHttpHeaders; bodyText: string; body: unknown };

export type FakeHttpResponse =
  | { type: 'respond'; status: number; headers?: Record<string, string>; body: string }
  /** Drop the connection without answering (a reset mid-request). */
  | { type: 'reset' }
  /** Send the status, headers and the start of the body, then drop the connection (a reset mid-answer). */
  | { type: 'cut'; status: number; bodyStart: string }
  /** Never answer (a hanging provider); the connection stays open until the client gives up or the server closes. */
  | { type: 'hang' };

export type FakeHttpServer = {
  /** http://127.0.0.1:<port> */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

export async function startFakeHttpServer(handle: (request: RecordedRequest) => FakeHttpResponse): Promise<FakeHttpServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const bodyText = Buffer.concat(chunks).toString('utf8');
      let body: unknown = undefined;
      try {
        body = bodyText === '' ? undefined : JSON.parse(bodyText);
      } catch {
        body = undefined;
      }
      const request: RecordedRequest = { method: incoming.method ?? '', path: incoming.url ?? '', headers: incoming.headers, bodyText, body };
      requests.push(request);
      const response = handle(request);
      if (response.type === 'reset') {
        incoming.socket.destroy();
        return;
      }
      if (response.type === 'hang') return;
      if (response.type === 'cut') {
        // A declared length longer than what is sent, so the client sees a body that ends early.
        outgoing.writeHead(response.status, { 'content-type': 'application/json', 'content-length': String(response.bodyStart.length + 100) });
        outgoing.write(response.bodyStart, () => incoming.socket.destroy());
        return;
      }
      outgoing.writeHead(response.status, { 'content-type': 'application/json', ...response.headers });
      outgoing.end(response.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }),
  };
}

/** A port nothing listens on, for connection-refused tests. */
export async function findClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

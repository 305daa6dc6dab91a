import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { UndecodableBodyError, nodeHttpFetch } from '../../src/models/node-http-fetch.ts';

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string; socket: Socket };

/** A real server on 127.0.0.1 whose routes each exercise one part of fetch's contract. */
describe('nodeHttpFetch (the vendor SDKs\' transport) keeps fetch\'s contract', () => {
  const seen: Seen[] = [];
  const connections = new Set<Socket>();
  let base = '';
  let stop = (): void => {};
  const routes: Record<string, (response: ServerResponse, request: IncomingMessage) => void> = {
    '/json': (response) => { response.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-two': ['a', 'b'] }); response.end('{"ok":true}'); },
    '/gzip': (response) => { response.writeHead(200, { 'content-encoding': 'gzip' }); response.end(gzipSync('zipped body')); },
    '/bad-gzip': (response) => { response.writeHead(200, { 'content-encoding': 'gzip' }); response.end('not gzip'); },
    '/br': (response) => { response.writeHead(200, { 'content-encoding': 'br' }); response.end(brotliCompressSync('brotli body')); },
    '/no-content': (response) => { response.writeHead(204); response.end(); },
    '/redirect': (response) => { response.writeHead(307, { location: '/json' }); response.end(); },
    '/hang-headers': () => {},
    '/hang-body': (response) => { response.writeHead(200, { 'content-length': '100' }); response.write('partial'); },
    '/reset': (_response, request) => { request.socket.destroy(); },
    '/echo': (response, request) => { response.end(seen.at(-1)?.body ?? request.url); },
    '/slow': (response) => { setTimeout(() => response.end('late'), 50); },
  };
  before(async () => {
    const server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; });
      request.on('end', () => {
        seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body, socket: request.socket });
        routes[request.url ?? '']?.(response, request);
      });
    });
    server.on('connection', (socket: Socket) => { connections.add(socket); });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stop = () => {
      for (const socket of connections) socket.destroy();
      server.close();
    };
  });
  after(() => stop());

  test('sends method, headers and body; answers status, status text, headers and body', async () => {
    const response = await nodeHttpFetch(`${base}/json`, { method: 'post', headers: new Headers({ 'Content-Type': 'application/json', 'X-Key': 'k' }), body: '{"q":1}' });
    const request = seen.at(-1) as Seen;
    assert.deepEqual([request.method, request.body, request.headers['x-key'], request.headers['content-type'], request.headers['content-length']], ['POST', '{"q":1}', 'k', 'application/json', '7']);
    assert.equal(request.headers['accept-encoding'], 'gzip, deflate, br');
    assert.deepEqual([response.status, response.statusText, response.ok, response.headers.get('x-two')], [201, 'Made', true, 'a, b']);
    assert.deepEqual(await response.json(), { ok: true });
  });

  test('decodes gzip and brotli bodies, as fetch does', async () => {
    assert.equal(await (await nodeHttpFetch(`${base}/gzip`)).text(), 'zipped body');
    assert.equal(await (await nodeHttpFetch(`${base}/br`)).text(), 'brotli body');
  });

  test('a body that does not decode as its content-encoding says is a "fetch failed" caused by UndecodableBodyError', async () => {
    const failure = await nodeHttpFetch(`${base}/bad-gzip`).catch((error: unknown) => error);
    assert.ok(failure instanceof TypeError);
    assert.ok(failure.cause instanceof UndecodableBodyError);
    assert.match(failure.cause.message, /content-encoding gzip but does not decode/);
  });

  test('a 204 and a HEAD have a null body', async () => {
    assert.equal((await nodeHttpFetch(`${base}/no-content`)).body, null);
    const head = await nodeHttpFetch(`${base}/json`, { method: 'HEAD' });
    assert.deepEqual([head.status, head.body], [201, null]);
  });

  test('follows a redirect with fetch\'s rules (the same method and body after a 307)', async () => {
    const response = await nodeHttpFetch(`${base}/redirect`, { method: 'POST', body: 'again' });
    assert.deepEqual(await response.json(), { ok: true });
    assert.deepEqual(seen.slice(-2).map((request) => [request.url, request.method, request.body]), [['/redirect', 'POST', 'again'], ['/json', 'POST', 'again']]);
  });

  test('a body fetch streams (a ReadableStream) goes through the global fetch unchanged', async () => {
    const body = new ReadableStream({ start(controller) { controller.enqueue(new TextEncoder().encode('streamed')); controller.close(); } });
    const response = await nodeHttpFetch(`${base}/echo`, { method: 'POST', body, duplex: 'half' } as RequestInit);
    assert.equal(await response.text(), 'streamed');
  });

  test('keeps the connection alive between requests', async () => {
    await (await nodeHttpFetch(`${base}/json`)).text();
    const first = (seen.at(-1) as Seen).socket;
    await (await nodeHttpFetch(`${base}/json`)).text();
    assert.equal((seen.at(-1) as Seen).socket, first);
  });

  test('keeps every connection of a wave of requests beyond 256 in flight alive for the next wave', async () => {
    // Node's agents keep 256 idle connections unless told otherwise: a run at --concurrency 400 reconnected 144 per wave.
    const wave = async (): Promise<Set<Socket>> => {
      const before = seen.length;
      await Promise.all(Array.from({ length: 400 }, async () => (await nodeHttpFetch(`${base}/slow`)).text()));
      return new Set(seen.slice(before).map((request) => request.socket));
    };
    const first = await wave();
    assert.equal(first.size, 400, 'all 400 were in flight at once');
    const second = await wave();
    assert.equal([...second].filter((socket) => !first.has(socket)).length, 0, 'no new connection in the second wave');
  });

  test('an abort before the answer, while waiting for headers or in the body rejects with the signal\'s reason', async () => {
    const already = AbortSignal.abort();
    await assert.rejects(nodeHttpFetch(`${base}/json`, { signal: already }), { name: 'AbortError' });
    for (const route of ['/hang-headers', '/hang-body']) {
      const controller = new AbortController();
      const pending = nodeHttpFetch(`${base}${route}`, { signal: controller.signal });
      setTimeout(() => controller.abort(), 30);
      await assert.rejects(pending, { name: 'AbortError' }, route);
    }
    const reason = new Error('my reason');
    const controller = new AbortController();
    const pending = nodeHttpFetch(`${base}/hang-headers`, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 10);
    await assert.rejects(pending, (error) => error === reason);
  });

  test('a dropped or refused connection is a TypeError "fetch failed" with the socket error as its cause', async () => {
    const dropped = await nodeHttpFetch(`${base}/reset`).catch((error: unknown) => error);
    assert.ok(dropped instanceof TypeError);
    assert.equal(dropped.message, 'fetch failed');
    assert.equal((dropped.cause as { code?: string }).code, 'ECONNRESET');
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    probe.close();
    await once(probe, 'close');
    const refused = await nodeHttpFetch(`http://127.0.0.1:${port}/`).catch((error: unknown) => error);
    assert.ok(refused instanceof TypeError);
    assert.equal((refused.cause as { code?: string }).code, 'ECONNREFUSED');
  });
});

/**
 * Streamable HTTP on 127.0.0.1 (official SDK transport, stateful): every MCP session claims the next
 * episode from the broker when it initializes and keeps it until it ends. A session closed (HTTP
 * DELETE, the endpoint shut down, or a client gone: its event stream dropped and nothing heard from it
 * within a grace) before its episode ended fails the episode as `agent.disconnected`. Once the broker is
 * closed, a new session is refused.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { ConfigError, ToolForgeError } from '../core/errors.ts';
import type { EpisodeBroker } from './episode-broker.ts';
import { createEpisodeMcpServer, endedEpisodeText } from './episode-mcp-server.ts';
import type { McpEpisode } from './mcp-episode.ts';

/** How long closing waits for open sessions to close themselves. */
const closeGraceMs = 2_000;

/**
 * How long a session whose client dropped its event stream (the GET an SDK client keeps open for the session's life)
 * may go without reopening it or sending a request before it counts as gone: a client killed without its DELETE
 * would otherwise hold its episode until the episode's time limit. The SDK client reconnects a dropped stream
 * within a few seconds.
 */
export const defaultStreamGoneGraceMs = 15_000;

/** `close(graceMs)` waits up to graceMs (default 2 s) for open sessions to close themselves. */
export type McpHttpEndpoint = { url: string; close(graceMs?: number): Promise<void> };

export async function serveEpisodesOverHttp(broker: EpisodeBroker, options: {
  port?: number;
  /** The client's name from its initialize request, before it claims an episode (a run can be named after it). */
  onInitialize?(client: { name: string; version: string }): void;
  /** See defaultStreamGoneGraceMs. */
  streamGoneGraceMs?: number;
  /**
   * What a client using its session after its episode ended is told (default: that each session plays one episode,
   * and to open a new one for another): how much of the run is left, and how to get the next episode.
   */
  endedMessage?(episode: McpEpisode): string;
} = {}): Promise<McpHttpEndpoint> {
  type Session = { transport: StreamableHTTPServerTransport; episode: McpEpisode; openStreams: number; lastRequest: number; gone?: boolean };
  const sessions = new Map<string, Session>();
  const streamGoneGraceMs = options.streamGoneGraceMs ?? defaultStreamGoneGraceMs;
  const disconnect = (episode: McpEpisode, why: string): void => episode.fail(new ToolForgeError('agent.disconnected',
    `task '${episode.task.id}': the MCP client ${why} before submitting an answer`, { fix: 'the episode is not scored; resuming the run reruns it (`toolforge serve --resume <run-id>` for a served run)' }));

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) {
      existing.lastRequest = performance.now();
      if (request.method === 'GET') watchStream(existing, response);
      return existing.transport.handleRequest(request, response);
    }
    if (typeof sessionId === 'string' || request.method !== 'POST') {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'unknown or closed session' }, id: null }));
      return;
    }
    const body = await readJsonBody(request);
    const clientInfo = initializeClientInfo(body);
    if (clientInfo) options.onInitialize?.(clientInfo);
    // A client that gives up while it waits for a place (killed, timed out) gives its place up too: otherwise the next
    // episode would go to its dead request and be held until the episode's time limit.
    const waiting = new AbortController();
    const giveUp = (): void => waiting.abort();
    response.once('close', giveUp);
    const episode = await broker.claim(waiting.signal);
    response.off('close', giveUp);
    if (waiting.signal.aborted) {
      // It went in the moment its episode came: the episode fails now, instead of waiting out its time limit.
      if (episode) disconnect(episode, 'went away while it waited for its episode');
      return;
    }
    if (!episode) {
      response.writeHead(410, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no episode of this run is left to serve: the run is over (every episode is done, or it stopped)' }, id: null }));
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => { sessions.set(id, { transport, episode, openStreams: 0, lastRequest: performance.now() }); },
    });
    const server = createEpisodeMcpServer({
      current: () => episode,
      noEpisode: () => options.endedMessage?.(episode)
        ?? `${endedEpisodeText(episode)}. Each session plays one episode: close this session (HTTP DELETE), and open a new one at this endpoint for the next episode while any remain (once all are done, a new session is refused with HTTP 410).`,
    });
    transport.onclose = () => {
      const gone = transport.sessionId ? sessions.get(transport.sessionId)?.gone === true : false;
      if (transport.sessionId) sessions.delete(transport.sessionId);
      disconnect(episode, gone ? `went away (its event stream closed, and it sent nothing for ${Math.round(streamGoneGraceMs / 1000)} s)` : 'closed its session');
      void server.close();
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
    // Not an initialize request: no session was made, and the claimed episode has no client.
    if (!transport.sessionId) disconnect(episode, 'sent a request that did not initialize a session');
  }

  /**
   * A session's event stream closed: if the client neither reopens one nor sends a request within the grace, it is
   * gone (killed, or its machine lost the connection), and its episode fails as disconnected, freeing its place.
   */
  function watchStream(session: Session, response: ServerResponse): void {
    session.openStreams += 1;
    response.once('close', () => {
      session.openStreams -= 1;
      const closedAt = performance.now();
      const timer = setTimeout(() => {
        const still = session.transport.sessionId !== undefined && sessions.get(session.transport.sessionId) === session;
        if (!still || session.openStreams > 0 || session.lastRequest > closedAt) return;
        session.gone = true;
        void session.transport.close();
      }, streamGoneGraceMs);
      timer.unref();
    });
  }

  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => {
      // A port taken by another program is the user's choice to change, not a crash.
      reject(error.code === 'EADDRINUSE'
        ? new ConfigError('config.invalid', `port ${options.port} on 127.0.0.1 is already in use`, { fix: 'pass --port <another port>, or leave --port out for a free one', cause: error })
        : error);
    });
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close(graceMs = closeGraceMs) {
      // Clients whose episode ended are usually closing their session right now: let them finish.
      for (let waited = 0; sessions.size > 0 && waited < graceMs; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      for (const { transport } of [...sessions.values()]) await transport.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function initializeClientInfo(body: unknown): { name: string; version: string } | undefined {
  const parsed = initializeSchema.safeParse(body);
  return parsed.success ? { name: parsed.data.params.clientInfo.name, version: parsed.data.params.clientInfo.version ?? '' } : undefined;
}

const initializeSchema = z.object({
  method: z.literal('initialize'),
  params: z.object({ clientInfo: z.object({ name: z.string(), version: z.string().optional() }) }),
});

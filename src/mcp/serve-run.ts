/**
 * `toolforge serve`: the episodes of a run served over MCP (streamable HTTP on 127.0.0.1) to whatever
 * client connects. One MCP session is one episode: a session claims the next episode when it
 * initializes, ends it with `submit_answer` (or `run_program`), and the client opens a new session for
 * the next task; once every episode is done a new session is refused. The run is an ordinary run of
 * the store, named `mcp/<client name>` after the first client that initializes (or `clientName`).
 */
import { ToolForgeError } from '../core/errors.ts';
import type { RunOptions } from '../runner/run-evaluation.ts';
import { runEvaluation } from '../runner/run-evaluation.ts';
import type { RunSummary } from '../runner/summarize-run.ts';
import { EpisodeBroker } from './episode-broker.ts';
import { createMcpAgentSource } from './mcp-agent.ts';
import { serveEpisodesOverHttp } from './mcp-http-endpoint.ts';

export type ServeRunOptions = Omit<RunOptions, 'modelRef' | 'agent'> & {
  /** Default: any free port. */
  port?: number;
  /** The run's model is `mcp/<clientName>`; default the name the first client gives in its initialize request. */
  clientName?: string;
  /** Told the endpoint's URL once it listens. */
  onListening?(url: string): void;
};

export async function serveRun(options: ServeRunOptions): Promise<RunSummary> {
  const broker = new EpisodeBroker();
  let nameClient: (name: string) => void = () => {};
  const clientName = new Promise<string>((resolve) => { nameClient = resolve; });
  if (options.clientName !== undefined) nameClient(options.clientName);
  const endpoint = await serveEpisodesOverHttp(broker, { port: options.port, onInitialize: (client) => nameClient(client.name) });
  try {
    options.onListening?.(endpoint.url);
    const name = modelName(await untilAborted(clientName, options.signal));
    const agent = createMcpAgentSource(name, async (episode, signal) => {
      await broker.offer(episode, signal);
      return { detach: async () => {} };
    });
    return await runEvaluation({ ...options, modelRef: agent.ref, agent });
  } finally {
    broker.close();
    await endpoint.close();
  }
}

/** A client name as a model id: `Claude Code` -> `claude-code`. */
export function modelName(clientName: string): string {
  return clientName.trim().toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'client';
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new ToolForgeError('agent.disconnected', 'stopped before any MCP client connected'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * `toolforge serve`: the episodes of a run served over MCP (streamable HTTP on 127.0.0.1) to whatever
 * client connects. One MCP session is one episode: a session claims the next episode when it
 * initializes, ends it with `submit_answer` (or `run_program`), and the client opens a new session for
 * the next task; once every episode is done a new session is refused. The run is an ordinary run of
 * the store, named `mcp/<client name>` after the first client that initializes (or `clientName`).
 * The answer that ends an episode is sent once the episode is committed to the store (episode-commits.ts).
 */
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { AgentSource } from '../agents/spec.ts';
import { ConfigError, ToolForgeError } from '../core/errors.ts';
import { isExternalAgentRun } from '../runner/external-agent-run.ts';
import type { ExecutionOptions, ResumeOptions, RunOptions } from '../runner/run-evaluation.ts';
import type { RunProgressListener } from '../runner/run-progress.ts';
import type { ResultsStore } from '../store/results-store.ts';
import { checkMovedTasksFile, openStoredRun, resumeEvaluation, runEvaluation, withStore } from '../runner/run-evaluation.ts';
import { checkRunNotHeld } from '../runner/run-hold.ts';
import { checkSuiteMode } from '../runner/episode-mode.ts';
import type { RunSummary } from '../runner/summarize-run.ts';
import { EpisodeBroker } from './episode-broker.ts';
import { watchEpisodeCommits } from './episode-commits.ts';
import { createEpisodeMcpServer, endedEpisodeText, requestOf } from './episode-mcp-server.ts';
import type { McpEpisode } from './mcp-episode.ts';
import type { ServedRunCounts } from './served-run-tally.ts';
import { createServedRunTally } from './served-run-tally.ts';
import { createMcpAgentSource, mcpProvider } from './mcp-agent.ts';
import { serveEpisodesOverHttp } from './mcp-http-endpoint.ts';
import { modelName } from './model-name.ts';

/** How the episodes are served: the transport, and where. */
export type ServingOptions = {
  /** 'http' (default): streamable HTTP, one session per episode. 'stdio': one client on stdin/stdout, the episodes in turn. */
  transport?: 'http' | 'stdio';
  /** stdio: default process.stdin / process.stdout. */
  stdio?: { input: Readable; output: Writable };
  /** Default: any free port. */
  port?: number;
  /** http: how long a client whose event stream dropped may stay silent before its episode fails as disconnected (default 15 s). */
  streamGoneGraceMs?: number;
  /** The run's model is `mcp/<clientName>`; default the name the first client gives in its initialize request. */
  clientName?: string;
  /** Told the endpoint's URL once it listens. */
  onListening?(url: string): void;
  signal?: AbortSignal;
};

export type ServeRunOptions = Omit<RunOptions, 'modelRef' | 'agent'> & ServingOptions;

/** Continue a served run: its missing and infrastructure-error episodes, served again to its client. */
export type ServeResumeOptions = Omit<ResumeOptions, 'agent'> & Omit<ServingOptions, 'clientName'>;

/**
 * Runs the served episodes once the client's agent is known, on `store` (the run's store, watched for commits) and
 * reporting to `onProgress`; `concurrency` is set when the transport fixes it.
 */
type Evaluate = (agent: AgentSource, overrides: { concurrency?: number; store: ResultsStore; onProgress: RunProgressListener }) => Promise<RunSummary>;

export async function serveRun(options: ServeRunOptions): Promise<RunSummary> {
  // Before the endpoint listens: runEvaluation checks too, but only once a client has connected.
  checkSuiteMode(options.suite, options.mode);
  return withStore(options, (store) => serveEpisodes(options, store, (agent, overrides) => runEvaluation({ ...options, ...overrides, modelRef: agent.ref, agent })));
}

/**
 * `toolforge serve --resume`: the run keeps its model (`mcp/<name>`), so the client it is served to is named after it.
 * The run is checked before the endpoint listens (an external agent's run, of this suite version, with its tasks).
 */
export async function serveResume(options: ServeResumeOptions): Promise<RunSummary> {
  return withStore(options, async (store) => {
    const run = store.getRun(options.runId);
    if (!isExternalAgentRun(run)) {
      throw new ConfigError('config.invalid', `run '${run.id}' evaluated ${run.model}, not an external agent: serve --resume continues runs of MCP clients`, {
        fix: `continue it with 'toolforge run --resume ${run.id}${options.databaseFlag ?? ''}'`,
      });
    }
    const clientName = run.model.slice(`${mcpProvider}/`.length);
    // A run stopped while its tasks were stored is served again too: resumeEvaluation stores the rest first.
    openStoredRun(store, { ...options, store, agent: createMcpAgentSource(clientName, () => Promise.reject(new Error('not served'))) }, { storingTasks: true });
    if (options.tasksFile !== undefined) checkMovedTasksFile(store, run, resolve(options.tasksFile), options.databaseFlag);
    checkRunNotHeld(store, run.id, 'served again');
    return serveEpisodes({ ...options, clientName }, store, (agent, overrides) => resumeEvaluation({ ...options, ...overrides, agent }));
  });
}

/** What serving needs besides the transport: the run's progress, told on to the caller's listener. */
type ServeEpisodesOptions = ServingOptions & Pick<ExecutionOptions, 'onProgress'>;

/** Serves the episodes the runner offers; what clients are told about the run is counted as it goes. */
type Serving = {
  evaluate(agent: AgentSource, overrides?: { concurrency?: number }): Promise<RunSummary>;
  counts(): ServedRunCounts;
  /** A client has the episode. */
  claimed(episode: McpEpisode): void;
  untilStored: ReturnType<typeof watchEpisodeCommits>['untilStored'];
};

async function serveEpisodes(options: ServeEpisodesOptions, store: ResultsStore, evaluate: Evaluate): Promise<RunSummary> {
  const commits = watchEpisodeCommits(store);
  const tally = createServedRunTally();
  const serving: Serving = {
    evaluate: (agent, overrides = {}) => evaluate(agent, { ...overrides, store: commits.store, onProgress: tally.listener(options.onProgress) })
      // An episode the run ended without writing (cancelled) is never stored: its client is told, not left waiting.
      .finally(() => commits.close()),
    counts: () => tally.counts(),
    claimed: (episode) => tally.claimed(episode),
    untilStored: (taskId, trial) => commits.untilStored(taskId, trial),
  };
  return options.transport === 'stdio' ? serveOverStdio(options, serving) : serveOverHttp(options, serving);
}

async function serveOverHttp(options: ServeEpisodesOptions, serving: Serving): Promise<RunSummary> {
  const broker = new EpisodeBroker();
  let nameClient: (name: string) => void = () => {};
  const clientName = new Promise<string>((resolve) => { nameClient = resolve; });
  if (options.clientName !== undefined) nameClient(options.clientName);
  const endpoint = await serveEpisodesOverHttp(broker, {
    port: options.port, onInitialize: (client) => nameClient(client.name), ...(options.streamGoneGraceMs === undefined ? {} : { streamGoneGraceMs: options.streamGoneGraceMs }),
    endedMessage: (episode) => `${endedEpisodeText(episode)}. ${restOverHttp(serving.counts())}`,
  });
  try {
    options.onListening?.(endpoint.url);
    const name = modelName(await untilAborted(clientName, options.signal));
    const agent = createMcpAgentSource(name, async (episode, signal) => {
      await broker.offer(episode, signal);
      serving.claimed(episode);
      return { detach: async () => {} };
    }, { untilStored: serving.untilStored });
    return await serving.evaluate(agent);
  } finally {
    broker.close();
    await endpoint.close();
  }
}

/** The rest of the run as a client whose HTTP session's episode ended is told it: one session plays one episode. */
function restOverHttp(counts: ServedRunCounts): string {
  if (counts.remaining === 0) return `${runOverText(counts)}; close this session (HTTP DELETE).`;
  const waiting = counts.remaining - counts.playing;
  const left = `${counts.remaining} of the run's ${counts.total} episodes remain`;
  if (waiting === 0) {
    return `${left}, all being played in other sessions, so none is waiting for a client: close this session (HTTP DELETE); a new session opened now waits until one is free, and is refused (HTTP 410) once the run is done.`;
  }
  return `${left} (${counts.playing} being played in other sessions, ${waiting} waiting for a client): to play the next, close this session (HTTP DELETE) and open a new one at this endpoint (initialize); each session plays one episode.`;
}

/** Nothing of the run is left to serve: it is done, or it stopped. */
function runOverText(counts: ServedRunCounts): string {
  return counts.ended !== undefined && counts.ended !== 'finished'
    ? `The run has stopped (${counts.ended}): nothing more is served`
    : 'Every episode of this run is done: nothing is left to serve';
}

/**
 * stdio: one client for the whole run, so its session moves through the episodes in turn (concurrency 1):
 * the answer that ends an episode names the next task, and the client is told tools/list_changed. When
 * the client goes away, the open episode and every later one are infrastructure errors (rerun on resume).
 */
async function serveOverStdio(options: ServeEpisodesOptions, serving: Serving): Promise<RunSummary> {
  const broker = new EpisodeBroker();
  let current: McpEpisode | undefined;
  let closed = false;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => { markReady = resolve; });
  let nameClient: (name: string) => void = () => {};
  let noClient: (error: Error) => void = () => {};
  const clientName = new Promise<string>((resolve, reject) => { nameClient = resolve; noClient = reject; });
  clientName.catch(() => {});
  if (options.clientName !== undefined) nameClient(options.clientName);
  const disconnected = (episode: McpEpisode): ToolForgeError => new ToolForgeError('agent.disconnected',
    `task '${episode.task.id}': the MCP client (stdio) closed the connection before submitting an answer`, { fix: 'the episode is not scored; resume the run to rerun it' });
  // The session moves to the next episode once per ended one: the call that ended it, or a later call when the runner
  // ended it (its time ran out), starts the move; a call meanwhile is told the next one is on its way.
  let moving: Promise<string> | undefined;
  const claimNext = (): Promise<string> => {
    moving ??= (async () => {
      const next = await broker.claim();
      current = next;
      if (next) serving.claimed(next);
      markReady();
      if (next) return `Next task (${next.task.id}): ${requestOf(next)}`;
      const { ended } = serving.counts();
      return ended === undefined || ended === 'finished' ? 'All episodes of this run are done.' : `${runOverText(serving.counts())}.`;
    })().finally(() => { moving = undefined; });
    return moving;
  };
  const noEpisode = async (ended: McpEpisode | undefined, { moveOn }: { moveOn: boolean }): Promise<string> => {
    const counts = serving.counts();
    if (!ended) return `${runOverText(counts).replace(/^./, (first) => first.toLowerCase())}; close the connection`;
    const head = endedEpisodeText(ended);
    if (counts.remaining === 0) return `${head}. ${runOverText(counts)}; close the connection.`;
    const left = `${counts.remaining} of the run's ${counts.total} episodes remain: the next one comes on this same session (stdio serves them in turn)`;
    if (moving || ended.endedHow?.by === 'client') return `${head}. ${left}; the answer to the call that ended this one names its task, and tools/list_changed follows.`;
    if (!moveOn) return `${head}. ${left} at your next tool call, whose answer names its task.`;
    return `${head}. ${await claimNext()}`;
  };
  const server = createEpisodeMcpServer({
    current: () => current, ready: () => ready, afterEnd: claimNext, noEpisode,
    onInitialized: (client) => nameClient(client.name),
  });
  const input = options.stdio?.input ?? process.stdin;
  const transport = new StdioServerTransport(input, options.stdio?.output ?? process.stdout);
  transport.onclose = () => {
    if (closed) return;
    closed = true;
    noClient(new ToolForgeError('agent.disconnected', 'the MCP client (stdio) closed the connection before it initialized: no episode was served', {
      fix: 'start serve --stdio from an MCP client (its stdin and stdout are the MCP channel)',
    }));
    if (current) current.fail(disconnected(current));
    broker.close();
    markReady();
    // Episodes offered but not yet claimed: the client will never take them.
    void (async () => {
      for (let episode = await broker.claim(); episode; episode = await broker.claim()) episode.fail(disconnected(episode));
    })();
  };
  // The SDK's transport never notices its input ending: a client that closes stdin has gone away.
  const onInputEnd = (): void => { void transport.close(); };
  input.once('end', onInputEnd);
  input.once('close', onInputEnd);
  await server.connect(transport);
  try {
    const name = modelName(await untilAborted(clientName, options.signal));
    const agent = createMcpAgentSource(name, async (episode, signal) => {
      if (closed) throw disconnected(episode);
      await broker.offer(episode, signal);
      return { detach: async () => {} };
    }, { untilStored: serving.untilStored });
    void claimNext();
    return await serving.evaluate(agent, { concurrency: 1 });
  } finally {
    input.off('end', onInputEnd);
    input.off('close', onInputEnd);
    broker.close();
    // Let the answer that ended the last episode ("all done") reach the client before the transport closes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.close();
  }
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

/**
 * An agent outside ToolForge, reached over MCP, as the runner sees it: a model source (`mcp/<name>`)
 * whose agent opens the episode to an MCP client and waits for it to end. The runner's retries, store,
 * resume and reports then work as for any model. How the client gets the episode is the `attach`
 * strategy: a session of `toolforge serve` claims it, or a process started per episode connects to it.
 *
 * The episode clock stops while the episode waits for a client (a queue is not the agent's time);
 * past the time limit, or when the client goes away, the episode is an infrastructure error.
 */
import { startEpisodeClock } from '../agents/episode-clock.ts';
import type { AgentContext, AgentOutcome, AgentSource } from '../agents/spec.ts';
import type { Task } from '../core/task.ts';
import { ToolForgeError } from '../core/errors.ts';
import type { Mode } from '../core/mode.ts';
import { emptyUsage } from '../core/usage.ts';
import type { EpisodeContext, LanguageModel } from '../models/spec.ts';
import type { EpisodeStorage } from './episode-commits.ts';
import { McpEpisode } from './mcp-episode.ts';

/** Gets the episode to a client; resolves once a client has it. `detach` ends whatever attach started. */
export type AttachEpisode = (episode: McpEpisode, signal: AbortSignal) => Promise<{ detach(): Promise<void> }>;

export const mcpProvider = 'mcp';

export type McpAgentOptions = {
  /** Settles once the episode (task, trial) is in the results store: the answer that ends an episode waits for it (serve). */
  untilStored?(taskId: string, trial: number): Promise<EpisodeStorage>;
};

export function createMcpAgentSource(name: string, attach: AttachEpisode, options: McpAgentOptions = {}): AgentSource {
  const ref = `${mcpProvider}/${name}`;
  const model: LanguageModel = {
    specificationVersion: 'v1', provider: mcpProvider, modelId: name,
    generate: () => Promise.reject(new ToolForgeError('internal', `${ref} is an external agent: it is driven over MCP, never asked to generate`)),
  };
  // The agent is told the task but not the trial, which the store keys an episode by: the runner asks forEpisode (with
  // both) and then createAgent for one episode without yielding in between, so the agent made next takes the trial.
  let announced: EpisodeContext | undefined;
  return {
    ref,
    forEpisode: (episode) => {
      announced = episode;
      return model;
    },
    createAgent: (mode: Mode) => {
      const episodeContext = announced;
      announced = undefined;
      return {
        id: 'mcp',
        mode,
        run: (task, context) => runEpisode(task, mode, context, episodeContext?.task === task ? episodeContext.trial : undefined),
      };
    },
  };

  async function runEpisode(task: Task, mode: Mode, context: AgentContext, trial: number | undefined): Promise<AgentOutcome> {
    const clock = context.clock ?? startEpisodeClock(context.limits.timeLimitMs);
    const { untilStored } = options;
    const episode = new McpEpisode(task, mode, context, {
      ...(trial === undefined ? {} : { trial }),
      // Without the trial the episode's row cannot be told apart: its ending is then answered at once, as before.
      ...(untilStored && trial !== undefined ? { untilStored: () => untilStored(task.id, trial) } : {}),
    });
    const resume = clock.pause();
    let attached: { detach(): Promise<void> };
    try {
      attached = await attach(episode, context.signal);
    } finally {
      resume(0);
    }
    const onTimeout = (): void => episode.fail(new ToolForgeError('agent.timeout', `task '${task.id}': ${ref} did not submit an answer within ${context.limits.timeLimitMs} ms`, {
      fix: 'raise the limit with --episode-timeout <ms>; the episode is not scored, and resuming the run reruns it',
    }));
    const onCancel = (): void => episode.fail(new ToolForgeError('agent.disconnected', 'the run was cancelled'));
    clock.signal.addEventListener('abort', onTimeout, { once: true });
    context.signal.addEventListener('abort', onCancel, { once: true });
    if (clock.signal.aborted) onTimeout();
    try {
      const outcome = await episode.outcome;
      return { termination: outcome.termination, messages: outcome.messages, usage: emptyUsage };
    } finally {
      clock.signal.removeEventListener('abort', onTimeout);
      context.signal.removeEventListener('abort', onCancel);
      if (!context.clock) clock.dispose();
      await attached.detach();
    }
  }
}

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
import type { AgentSource } from '../agents/spec.ts';
import { ToolForgeError } from '../core/errors.ts';
import type { Mode } from '../core/mode.ts';
import { emptyUsage } from '../core/usage.ts';
import type { LanguageModel } from '../models/spec.ts';
import { McpEpisode } from './mcp-episode.ts';

/** Gets the episode to a client; resolves once a client has it. `detach` ends whatever attach started. */
export type AttachEpisode = (episode: McpEpisode, signal: AbortSignal) => Promise<{ detach(): Promise<void> }>;

export const mcpProvider = 'mcp';

export function createMcpAgentSource(name: string, attach: AttachEpisode): AgentSource {
  const ref = `${mcpProvider}/${name}`;
  const model: LanguageModel = {
    specificationVersion: 'v1', provider: mcpProvider, modelId: name,
    generate: () => Promise.reject(new ToolForgeError('internal', `${ref} is an external agent: it is driven over MCP, never asked to generate`)),
  };
  return {
    ref,
    forEpisode: () => model,
    createAgent: (mode: Mode) => ({
      id: 'mcp',
      mode,
      async run(task, context) {
        const clock = context.clock ?? startEpisodeClock(context.limits.timeLimitMs);
        const episode = new McpEpisode(task, mode, context);
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
      },
    }),
  };
}

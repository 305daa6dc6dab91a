/**
 * The MCP server of one client session (official SDK, low-level Server: the tools' JSON Schemas are
 * served as the task states them). The session shows whatever episode its slot holds: tools and
 * `submit_answer` (tools/*), the full prompt and the request alone (prompts `task` and `request`),
 * and the same as resources (`toolforge://episode`, `toolforge://episode/request`,
 * `toolforge://episode/prompt`). A slot that moves on to a next episode (stdio) says so in the
 * answer that ended the last one and notifies tools/list_changed. A session whose episode ended offers
 * no tools, and every call, prompt or resource read on it is answered with what the slot says is true:
 * which episode ended and how, what is left of the run, and how to get the next episode.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema,
  ListToolsRequestSchema, McpError, ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../core/json.ts';
import { isJsonObject } from '../core/json.ts';
import type { McpEpisode } from './mcp-episode.ts';

export type EpisodeSlot = {
  /** The episode this session is on; undefined before the first or after the last. */
  current(): McpEpisode | undefined;
  /** Called once the current episode ended: moves on (stdio) and returns what to tell the client, if anything. */
  afterEnd?(): Promise<string | undefined>;
  /**
   * What a client that uses the session with no episode open is told: `ended` is the session's episode that ended
   * (undefined when it has none). It must be true about the rest of the run and say how to get the next episode.
   * `moveOn`: the request is a tool call, which a slot that moves on (stdio) may answer by moving on now.
   */
  noEpisode(ended: McpEpisode | undefined, options: { moveOn: boolean }): string | Promise<string>;
  /** Resolves once the slot holds its first episode (or never will); handlers wait for it. */
  ready?(): Promise<void>;
  /** The client's name and version, once it initialized. */
  onInitialized?(client: { name: string; version: string }): void;
};

export const episodeResourceUri = 'toolforge://episode';
export const requestResourceUri = 'toolforge://episode/request';
export const promptResourceUri = 'toolforge://episode/prompt';

export function createEpisodeMcpServer(slot: EpisodeSlot): Server {
  const server = new Server(
    { name: 'toolforge', version: '1' },
    {
      capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} },
      instructions: 'A ToolForge evaluation episode. Read the prompt `task` (or the resource toolforge://episode/request), use the tools, then call submit_answer with your final answer (code tasks: call run_program with your program).',
    },
  );
  server.oninitialized = () => {
    const client = server.getClientVersion();
    slot.onInitialized?.({ name: client?.name ?? 'client', version: client?.version ?? '' });
  };
  /** The session has no episode open: refused with what the slot says (an McpError, for prompts and resources). */
  const refusal = async (episode: McpEpisode | undefined): Promise<McpError> => new McpError(ErrorCode.InvalidRequest, await slot.noEpisode(episode, { moveOn: false }));

  // An ended episode's tools can no longer be called: none are listed (tools/list_changed says so when it ends).
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const episode = await readyEpisode(slot);
    return {
      tools: (episode && !episode.isOver ? episode.tools() : []).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: { type: 'object' as const, ...tool.inputSchema } })),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const episode = await readyEpisode(slot);
    if (!episode || episode.isOver) {
      const message = await slot.noEpisode(episode, { moveOn: true });
      if (slot.current() !== episode) await server.sendToolListChanged().catch(() => {});
      return { content: [{ type: 'text' as const, text: JSON.stringify({ error: { code: episode ? 'episode.over' : 'episode.none', message } }) }], isError: true };
    }
    const args: JsonObject | undefined = isJsonObject(request.params.arguments) ? request.params.arguments : undefined;
    const answer = await episode.call(request.params.name, args);
    if (!episode.isOver) return answer;
    const next = await slot.afterEnd?.();
    // The tools changed: to the next episode's (stdio), or to none.
    await server.sendToolListChanged().catch(() => {});
    return next === undefined ? answer : { ...answer, content: [...answer.content, { type: 'text' as const, text: next }] };
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [
      { name: 'task', description: 'The full prompt of the current task (instructions and request)' },
      { name: 'request', description: 'The request of the current task alone' },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const episode = await readyEpisode(slot);
    if (!episode || episode.isOver) throw await refusal(episode);
    const text = request.params.name === 'request' ? requestOf(episode) : promptText(episode);
    return { description: `task ${episode.task.id}`, messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      { uri: episodeResourceUri, name: 'episode', description: 'The current episode: task id, mode, request, tool names', mimeType: 'application/json' },
      { uri: requestResourceUri, name: 'request', description: 'The request of the current task', mimeType: 'text/plain' },
      { uri: promptResourceUri, name: 'prompt', description: 'The full prompt of the current task', mimeType: 'text/plain' },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const episode = await readyEpisode(slot);
    const { uri } = request.params;
    if (!episode || episode.isOver) {
      // The episode resource says the session's state; the task's text is for an open episode only.
      if (uri !== episodeResourceUri) throw await refusal(episode);
      const message = await slot.noEpisode(episode, { moveOn: false });
      const about = episode ? { taskId: episode.task.id, suite: episode.task.suite.id, mode: episode.mode, state: 'ended' } : { state: 'none' };
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ ...about, message }) }] };
    }
    const text = uri === requestResourceUri ? requestOf(episode)
      : uri === promptResourceUri ? promptText(episode)
        : uri === episodeResourceUri ? JSON.stringify(episodeInfo(episode))
          : undefined;
    if (text === undefined) throw new Error(`unknown resource '${uri}'`);
    return { contents: [{ uri, mimeType: uri === episodeResourceUri ? 'application/json' : 'text/plain', text }] };
  });
  return server;
}

async function readyEpisode(slot: EpisodeSlot): Promise<McpEpisode | undefined> {
  await slot.ready?.();
  return slot.current();
}

export function episodeInfo(episode: McpEpisode): JsonObject {
  return {
    taskId: episode.task.id, suite: episode.task.suite.id, mode: episode.mode, state: 'open',
    request: requestOf(episode), tools: episode.tools().map((tool) => tool.name),
  };
}

/** The first part of what a client is told about its ended episode: which one, and how it ended. */
export function endedEpisodeText(episode: McpEpisode): string {
  return `the episode of task '${episode.task.id}' on this session has ended (${episode.endedHow?.how ?? 'it is over'})`;
}

/** The request alone (`task.query`), or the last user message of the prompt for tasks written before it. */
export function requestOf(episode: McpEpisode): string {
  return episode.task.query ?? [...episode.task.prompt].reverse().find((message) => message.role === 'user')?.content ?? '';
}

function promptText(episode: McpEpisode): string {
  const parts = episode.task.prompt.map((message) => message.content);
  if (episode.mode === 'code' && episode.task.starter) parts.push(episode.task.starter);
  return parts.join('\n\n');
}

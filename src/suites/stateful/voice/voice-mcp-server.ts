/**
 * The voice lab as an MCP server (official SDK): six tools with zod input schemas; results are JSON in a text
 * block and as structured content; refusals are tool errors (`isError`). Served in-process (in-memory transport,
 * used by the sandbox bindings) or over streamable HTTP on 127.0.0.1 for agents that speak MCP natively.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { JsonValue } from '../../../core/json.ts';
import { speechReferenceSchema, voiceCategories, voiceGenders, VoiceLab, VoiceLabError } from './voice-lab.ts';

export const voiceToolNames = ['search_voice_library', 'text_to_speech', 'speech_to_speech', 'speech_to_text', 'isolate_audio', 'make_outbound_call'] as const;

type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

function run(lab: VoiceLab, tool: string, args: Record<string, unknown>, action: () => unknown): ToolResult {
  lab.record(tool, JSON.parse(JSON.stringify(args)) as JsonValue);
  try {
    const value = action();
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: { result: value } };
  } catch (error) {
    if (error instanceof VoiceLabError) return { content: [{ type: 'text', text: error.message }], isError: true };
    throw error;
  }
}

const voiceName = z.string().describe('name of a voice from the voice library, e.g. "Emma"');
const unit = (description: string) => z.number().min(0).max(1).optional().describe(description);

/**
 * The lab's MCP server. The SDK is loaded by the first voice episode, not with the suite: every command loads the
 * suite registry, and the SDK cost each of them ~95 ms to start.
 */
export async function createVoiceMcpServer(lab: VoiceLab): Promise<McpServer> {
  const { McpServer: Server } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  return buildVoiceMcpServer(Server, lab);
}

function buildVoiceMcpServer(Server: typeof McpServer, lab: VoiceLab): McpServer {
  const server = new Server({ name: 'voice-lab', version: '1.0.0' });
  server.registerTool('search_voice_library', {
    description: 'Search the voice library by name, category and/or gender. Returns the matching voices [{voice_name, category, gender}].',
    inputSchema: {
      search_name: z.string().optional(),
      search_category: z.enum(voiceCategories).optional(),
      search_gender: z.enum(voiceGenders).optional(),
    },
  }, (args) => run(lab, 'search_voice_library', args, () => lab.searchVoiceLibrary(args)));
  server.registerTool('text_to_speech', {
    description: 'Convert text to speech with a voice. Returns a Speech {speech_id, text, voice_name, stability, similarity_boost, style, duration, history}.',
    inputSchema: {
      text: z.string(), voice_name: voiceName,
      stability: unit('voice stability, default 0.5'), similarity_boost: unit('similarity boost, default 0.75'), style: unit('style exaggeration, default 0'),
    },
  }, (args) => run(lab, 'text_to_speech', args, () => lab.textToSpeech(args)));
  server.registerTool('speech_to_speech', {
    description: 'Re-voice a speech with another voice. Returns the new Speech.',
    inputSchema: { speech: speechReferenceSchema, voice_name: voiceName },
  }, (args) => run(lab, 'speech_to_speech', args, () => lab.speechToSpeech(args)));
  server.registerTool('speech_to_text', {
    description: 'Transcribe a speech. Returns {text, diarize}.',
    inputSchema: { speech: speechReferenceSchema, diarize: z.boolean().optional().describe('annotate speakers, default false') },
  }, (args) => run(lab, 'speech_to_text', args, () => lab.speechToText(args)));
  server.registerTool('isolate_audio', {
    description: 'Remove background noise from a speech. Returns the isolated Speech (half the duration).',
    inputSchema: { speech: speechReferenceSchema },
  }, (args) => run(lab, 'isolate_audio', args, () => lab.isolateAudio(args)));
  server.registerTool('make_outbound_call', {
    description: 'Place an outbound phone call that plays a speech with a voice. Returns {status, call_id}.',
    inputSchema: { speech: speechReferenceSchema, voice_name: voiceName },
  }, (args) => run(lab, 'make_outbound_call', args, () => lab.makeOutboundCall(args)));
  return server;
}

export type VoiceHttpEndpoint = { url: string; close(): Promise<void> };

/** Streamable HTTP (stateless: a server instance per request, all over the same lab) on 127.0.0.1. */
export async function serveVoiceLabOverHttp(lab: VoiceLab): Promise<VoiceHttpEndpoint> {
  const [{ McpServer: Server }, { StreamableHTTPServerTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]);
  const http = createServer((request, response) => {
    const server = buildVoiceMcpServer(Server, lab);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    server.connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500).end(String(error));
      });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}

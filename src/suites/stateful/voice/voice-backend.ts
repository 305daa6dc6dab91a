/**
 * A fresh voice lab per test case, reached through its MCP server: each tool is a sandbox binding (an async
 * global function, `await text_to_speech({ text, voice_name })`) that calls the tool with the official MCP client
 * over an in-memory transport. A tool error becomes a thrown Error in model code. The end state is the outbound
 * call recorder (seeds-reference 6.4); ids are the lab's own and are left out of comparisons.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isJsonObject, type JsonValue } from '../../../core/json.ts';
import type { Bindings } from '../../../sandbox/spec.ts';
import { refuseAllRequests } from '../session/http-bridge.ts';
import type { BackendFactory } from '../stateful-backend.ts';
import { VoiceLab } from './voice-lab.ts';
import { createVoiceMcpServer, voiceToolNames } from './voice-mcp-server.ts';

/** Thrown into model code for a tool error, named like the Python client's exception. */
export class ToolError extends Error {
  override name = 'ToolError';
}

/** Ids (speech_id, call_id) depend on call order: values are compared without them. */
export function stripVoiceIds(value: JsonValue | undefined): JsonValue {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(stripVoiceIds);
  if (isJsonObject(value)) {
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'speech_id' && key !== 'call_id').map(([key, item]) => [key, stripVoiceIds(item)]));
  }
  return value;
}

export type VoiceConnection = { lab: VoiceLab; client: Client; close(): Promise<void> };

export async function connectVoiceLab(lab = new VoiceLab()): Promise<VoiceConnection> {
  // The SDK is loaded by the first voice episode (see createVoiceMcpServer).
  const [server, { InMemoryTransport }, { Client: McpClient }] = await Promise.all([
    createVoiceMcpServer(lab), import('@modelcontextprotocol/sdk/inMemory.js'), import('@modelcontextprotocol/sdk/client/index.js'),
  ]);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new McpClient({ name: 'toolforge-stateful', version: '1.0.0' });
  await client.connect(clientTransport);
  return { lab, client, close: async () => { await client.close(); await server.close(); } };
}

/** The JSON a tool returned, or a ToolError with its message. */
export async function callVoiceTool(client: Client, name: string, args: JsonValue | undefined): Promise<JsonValue> {
  const result = await client.callTool({ name, arguments: isJsonObject(args) ? args : {} });
  const text = Array.isArray(result.content) ? result.content.map((block) => (block.type === 'text' ? block.text : '')).join('') : '';
  if (result.isError) throw new ToolError(text);
  const structured = result.structuredContent as { result?: JsonValue } | undefined;
  return structured?.result ?? (JSON.parse(text) as JsonValue);
}

/** The six tools as sandbox bindings (async global functions) calling them through `client`. */
export function voiceBindings(client: Client): Bindings {
  const bindings: Bindings = {};
  for (const name of voiceToolNames) bindings[name] = (args) => callVoiceTool(client, name, args ?? {});
  return bindings;
}

export const createVoiceBackend: BackendFactory = async () => {
  const connection = await connectVoiceLab();
  return {
    bindings: voiceBindings(connection.client),
    http: refuseAllRequests,
    resolveResult: (value) => stripVoiceIds(value),
    snapshotState: () => stripVoiceIds({ outbound_calls: connection.lab.calls } as unknown as JsonValue),
    dispose: () => connection.close(),
  };
};

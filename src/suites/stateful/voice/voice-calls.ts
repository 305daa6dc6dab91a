/**
 * Mode `calls` for the voice scenario: the voice lab's MCP server as the model's native tools. Every episode
 * starts a fresh lab, serves it over streamable HTTP on 127.0.0.1 and reaches it with the official MCP client, so
 * each native call goes over MCP as a native MCP agent's would. The model is told the values the preloaded
 * variables have in the first test case, carries out the instructions call by call and answers with RESULT as
 * JSON. It passes when that RESULT and the lab's end state (the outbound calls) match the reference's on that
 * test case; the second test case (the flipped constant) needs a program that reads the constant, so only mode
 * `code` judges it.
 */
import type { Environment } from '../../../core/environment.ts';
import type { JsonObject, JsonValue } from '../../../core/json.ts';
import type { PromptMessage } from '../../../core/message.ts';
import type { Task } from '../../../core/task.ts';
import type { ToolResult, ToolSpec } from '../../../core/tool.ts';
import type { Sandbox } from '../../../sandbox/spec.ts';
import { refuseAllRequests } from '../session/http-bridge.ts';
import { composeProgram } from '../program-generator.ts';
import type { StatefulEndState } from '../stateful-environment.ts';
import { readStatefulExpected } from '../stateful-task.ts';
import { callVoiceTool, connectVoiceLab, stripVoiceIds, ToolError, voiceBindings } from './voice-backend.ts';
import { VoiceLab } from './voice-lab.ts';
import { serveVoiceLabOverHttp } from './voice-mcp-server.ts';
import { nodeHttpFetch } from '../../../models/node-http-fetch.ts';

let toolSpecs: Promise<ToolSpec[]> | undefined;

/** The six tools as the MCP server lists them (name, description, JSON Schema of the arguments). */
export function voiceToolSpecs(): Promise<ToolSpec[]> {
  toolSpecs ??= (async () => {
    const connection = await connectVoiceLab();
    try {
      const { tools } = await connection.client.listTools();
      return tools.map((tool) => {
        const { $schema: _, ...inputSchema } = tool.inputSchema as JsonObject;
        return { name: tool.name, description: tool.description ?? '', inputSchema };
      });
    } finally {
      await connection.close();
    }
  })();
  return toolSpecs;
}

/** A fresh lab behind a streamable HTTP MCP endpoint on 127.0.0.1, called with the official client. */
export async function createVoiceCallsEnvironment(): Promise<Environment> {
  const lab = new VoiceLab();
  // The SDK is loaded by the first voice episode (see createVoiceMcpServer).
  const [endpoint, { Client }, { StreamableHTTPClientTransport }, { McpError }] = await Promise.all([
    serveVoiceLabOverHttp(lab), import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'), import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const client = new Client({ name: 'toolforge-stateful-calls', version: '1.0.0' });
  try {
    // The buffered node:http fetch, not the global one: its dispatcher keeps a connection pool for every origin it
    // has reached, and every episode serves on a port of its own. The stateless server ends each response stream.
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { fetch: nodeHttpFetch }));
  } catch (error) {
    await endpoint.close();
    throw error;
  }
  const { tools } = await client.listTools();
  const specs: ToolSpec[] = tools.map((tool) => {
    const { $schema: _, ...inputSchema } = tool.inputSchema as JsonObject;
    return { name: tool.name, description: tool.description ?? '', inputSchema };
  });
  return {
    listTools: () => structuredClone(specs),
    async callTool(call): Promise<ToolResult> {
      if (!specs.some((spec) => spec.name === call.name)) {
        return { ok: false, error: { code: 'tool.unknown', message: `there is no tool '${call.name}'; use one of: ${specs.map((spec) => spec.name).join(', ')}` } };
      }
      if (call.arguments === undefined) return { ok: false, error: { code: 'arguments.invalid', message: `the arguments of '${call.name}' are not a JSON object` } };
      try {
        return { ok: true, output: await callVoiceTool(client, call.name, call.arguments) };
      } catch (error) {
        // The SDK answers arguments its schema refuses with -32602 (as a tool error or a thrown McpError).
        if (error instanceof ToolError || error instanceof McpError) {
          const invalid = /-32602|invalid arguments|input validation/i.test(error.message);
          return { ok: false, error: { code: invalid ? 'arguments.invalid' : 'execution.error', message: error.message } };
        }
        throw error;
      }
    },
    async snapshotState(): Promise<JsonValue> {
      // RESULT is the model's final answer, read by the scorer from the messages.
      const state: StatefulEndState = { testCases: [{ status: 'completed', result: null, state: stripVoiceIds({ outbound_calls: lab.calls } as unknown as JsonValue) }] };
      return state as unknown as JsonValue;
    },
    async dispose() {
      try {
        await client.close();
      } finally {
        await endpoint.close();
      }
    },
  };
}

/** The preloaded variables of an initialization block (`let name = <JSON>;` lines), RESULT aside. */
export function preloadedValues(initBlock: string): [string, JsonValue][] {
  return initBlock.split('\n').flatMap((line): [string, JsonValue][] => {
    const match = /^let (\w+) = (.*);$/.exec(line.trim());
    if (!match || match[1] === 'RESULT') return [];
    return [[match[1], JSON.parse(match[2]) as JsonValue]];
  });
}

export const voiceCallsInstruction = [
  "Carry out the instructions by calling the voice lab's tools, one step after another, with the values given below.",
  'Pass a Speech object (or its speech_id) wherever a speech is expected. Where the instructions name a response_k,',
  'use what that call returned. Where they say to set RESULT, do not call anything more: reply with the final value',
  'of RESULT as JSON in a ```json block.',
].join(' ');

/** The calls-mode prompt: the instructions (task.query, as a perturbation left it) and the first test case's values. */
export function voiceCallsPrompt(task: Task): PromptMessage[] {
  const [first] = readStatefulExpected(task).testCases;
  const values = preloadedValues(first.initBlock).map(([name, value]) => `- ${name} = ${JSON.stringify(value)}`);
  return [
    { role: 'system', content: voiceCallsInstruction },
    { role: 'user', content: `${task.query ?? ''}\n\nThe preloaded variables have these values:\n${values.join('\n')}` },
  ];
}

/** RESULT from a final answer: the JSON of its first code block, else of the whole text, else the text itself. */
export function parseResultAnswer(text: string): JsonValue {
  const fenced = /```[^\n`]*\n([\s\S]*?)(?:```|$)/.exec(text);
  const candidate = (fenced ? fenced[1] : text).trim();
  try {
    return JSON.parse(candidate) as JsonValue;
  } catch {
    return candidate;
  }
}

export type RecordedCalls = { calls: { name: string; arguments: JsonObject }[]; result: JsonValue };

/**
 * The tool calls a program makes on a fresh lab after `initBlock` (for the built-in models in calls mode: a fresh
 * lab gives the same ids to the same calls, so the calls replay exactly), and its RESULT (null if it failed).
 */
export async function recordVoiceCalls(sandbox: Sandbox, initBlock: string, body: string): Promise<RecordedCalls> {
  const connection = await connectVoiceLab();
  try {
    const run = await sandbox.run({
      code: composeProgram(initBlock, body),
      bindings: voiceBindings(connection.client),
      http: { respond: refuseAllRequests },
      limits: { timeLimitMs: 10_000 },
    });
    const calls = connection.lab.transitions.map((transition) => ({ name: transition.tool, arguments: transition.arguments as JsonObject }));
    return { calls, result: run.status === 'completed' ? (run.value ?? null) as JsonValue : null };
  } finally {
    await connection.close();
  }
}

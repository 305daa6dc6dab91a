import { z } from 'zod';
import type { ToolCall, ToolResult } from './tool.ts';

export type SystemMessage = { role: 'system'; content: string };
export type UserMessage = { role: 'user'; content: string };
export type AssistantMessage = {
  role: 'assistant';
  /** Text the model wrote (may be empty when it only called tools). */
  content: string;
  toolCalls: ToolCall[];
  reasoning?: string;
};
/** The result of one tool call, answered back to the model. */
export type ToolMessage = { role: 'tool'; toolCallId: string; toolName: string; result: ToolResult };

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export const promptMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
]);
export type PromptMessage = SystemMessage | UserMessage;

/** The text a tool result shows the model, identical across providers. */
export function renderToolResult(result: ToolResult): string {
  return result.ok
    ? (typeof result.output === 'string' ? result.output : JSON.stringify(result.output))
    : JSON.stringify({ error: result.error });
}

export function lastAssistantText(messages: readonly Message[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message.role === 'assistant') return message.content;
  }
  return '';
}

export function assistantToolCalls(messages: readonly Message[]): ToolCall[] {
  return messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls : []));
}

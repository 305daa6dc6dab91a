import type OpenAI from 'openai';
import type { Message } from '../../core/message.ts';
import { renderToolResult } from '../../core/message.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { ToolChoice } from '../spec.ts';
import { toStrictSchema } from './strict-tool-schema.ts';

type OpenAIMessage = OpenAI.Chat.ChatCompletionMessageParam;
type OpenAITool = OpenAI.Chat.ChatCompletionFunctionTool;

/** Our conversation in Chat Completions shape: each tool result is its own `role: 'tool'` message. */
export function convertToOpenAIMessages(messages: readonly Message[]): OpenAIMessage[] {
  return messages.map((message): OpenAIMessage => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
      case 'assistant':
        return message.toolCalls.length === 0
          ? { role: 'assistant', content: message.content }
          : {
            role: 'assistant',
            // OpenAI wants null, not '', next to tool calls.
            content: message.content === '' ? null : message.content,
            // The argument text goes back exactly as the model wrote it, malformed or not.
            tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.argumentsText } })),
          };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: renderToolResult(message.result) };
    }
  });
}

/** With `strict`, every tool whose schema can be strict is sent with `strict: true`; the others are named in `notStrict`. */
export function prepareOpenAITools(tools: readonly ToolSpec[], toolChoice: ToolChoice, strict = false): {
  fields: { tools?: OpenAITool[]; tool_choice?: ToolChoice };
  notStrict: string[];
} {
  if (tools.length === 0) return { fields: {}, notStrict: [] };
  const notStrict: string[] = [];
  const openAITools = tools.map((tool): OpenAITool => {
    const plain: OpenAITool = { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } };
    if (!strict) return plain;
    const converted = toStrictSchema(tool.inputSchema);
    if (!converted.ok) {
      notStrict.push(`${tool.name}: ${converted.reason}`);
      return plain;
    }
    return { type: 'function', function: { ...plain.function, parameters: converted.schema, strict: true } };
  });
  return { fields: { tools: openAITools, tool_choice: toolChoice }, notStrict };
}

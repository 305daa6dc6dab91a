import type OpenAI from 'openai';
import type { Message } from '../../core/message.ts';
import { renderToolResult } from '../../core/message.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { ToolChoice } from '../spec.ts';

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

export function prepareOpenAITools(tools: readonly ToolSpec[], toolChoice: ToolChoice): { tools?: OpenAITool[]; tool_choice?: ToolChoice } {
  if (tools.length === 0) return {};
  return {
    tools: tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } })),
    tool_choice: toolChoice,
  };
}

import type Anthropic from '@anthropic-ai/sdk';
import type { Message } from '../../core/message.ts';
import { renderToolResult } from '../../core/message.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { ToolChoice } from '../spec.ts';

type AnthropicBlock = Anthropic.ContentBlockParam;
type AnthropicTurn = { role: 'user' | 'assistant'; content: AnthropicBlock[] };

/**
 * Our conversation in Messages API shape: system text goes to the top-level `system`; tool results are
 * `tool_result` blocks inside a user turn, and consecutive same-role turns merge into one (the API
 * wants user and assistant to alternate, and all results of one assistant turn in the next user turn).
 */
export function convertToAnthropicMessages(messages: readonly Message[]): { system: string | undefined; messages: Anthropic.MessageParam[] } {
  const systemTexts: string[] = [];
  const turns: AnthropicTurn[] = [];
  const push = (role: AnthropicTurn['role'], blocks: AnthropicBlock[]): void => {
    // An empty assistant turn (no text, no calls) is rejected by the API; it carries nothing anyway.
    if (blocks.length === 0) return;
    const previous = turns[turns.length - 1];
    if (previous?.role === role) previous.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        systemTexts.push(message.content);
        break;
      case 'user':
        push('user', [{ type: 'text', text: message.content }]);
        break;
      case 'assistant':
        push('assistant', [
          ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
          // tool_use.input must be an object: a call whose text did not parse goes back as {} (the
          // model already got its parse error as the tool result).
          ...message.toolCalls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: call.arguments ?? {} })),
        ]);
        break;
      case 'tool':
        push('user', [{
          type: 'tool_result', tool_use_id: message.toolCallId, content: renderToolResult(message.result),
          ...(message.result.ok ? {} : { is_error: true }),
        }]);
        break;
    }
  }
  return {
    system: systemTexts.length > 0 ? systemTexts.join('\n\n') : undefined,
    // A lone text block is sent as a plain string, as the API documents for simple turns.
    messages: turns.map((turn) => ({
      role: turn.role,
      content: turn.content.length === 1 && turn.content[0].type === 'text' ? turn.content[0].text : turn.content,
    })),
  };
}

export function prepareAnthropicTools(tools: readonly ToolSpec[], toolChoice: ToolChoice): { tools?: Anthropic.Tool[]; tool_choice?: Anthropic.ToolChoice } {
  if (tools.length === 0) return {};
  return {
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema as Anthropic.Tool.InputSchema })),
    tool_choice: { type: toolChoice === 'required' ? 'any' : toolChoice },
  };
}

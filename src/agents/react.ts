/**
 * Mode `react`: a text protocol for models without native tools. The system prompt lists the tools
 * with their JSON Schemas and the Thought / Action / Action Input / Observation / Finish format
 * (src/core/react-format.ts). One action per model turn; its result comes back as a user message
 * `Observation: <renderToolResult(result)>`.
 *
 * - An output with no parsable Action is a turn: the model gets a correction message, and after
 *   `maxConsecutiveUnparsable` such outputs in a row the episode ends with 'output-unparsable'.
 * - `Finish` ends with 'final-answer'. The last assistant message's content is the Finish answer
 *   (what scorers read); the model's full ReAct text of that turn is kept as its `reasoning`.
 * - Parsed actions are not attached as native `toolCalls` (the model never saw native tools);
 *   the environment's call log is the record of calls.
 * - Limits as in the tool loop; a thrown model error propagates (infrastructure).
 */
import type { AssistantMessage, Message, PromptMessage } from '../core/message.ts';
import { renderToolResult } from '../core/message.ts';
import { parseReactStep, reactFinishAction, reactObservationPrefix } from '../core/react-format.ts';
import type { Task } from '../core/task.ts';
import type { Termination } from '../core/termination.ts';
import type { ToolSpec } from '../core/tool.ts';
import { createToolCall } from '../core/tool.ts';
import type { Usage } from '../core/usage.ts';
import { addUsage, emptyUsage } from '../core/usage.ts';
import type { Agent, AgentContext, AgentOutcome } from './spec.ts';
import { startEpisodeBudget } from './episode-budget.ts';
import { executeCall } from './execute-call.ts';
import { takeModelTurn } from './model-turn.ts';

export const maxConsecutiveUnparsable = 3;

export const reactCorrectionMessage = 'Your reply had no Action line I could read. Reply in exactly this format:\n'
  + 'Thought: <your reasoning>\nAction: <one tool name, or Finish>\nAction Input: <a JSON object>';

export function createReactAgent(): Agent {
  return { id: 'react', mode: 'react', run: runReact };
}

/** The instructions and tool list the model sees in react mode. */
export function reactSystemPrompt(tools: readonly ToolSpec[]): string {
  const toolLines = tools.map((tool) => `- ${tool.name}: ${tool.description}\n  Input schema: ${JSON.stringify(tool.inputSchema)}`);
  return [
    'You can use the tools listed below. To use a tool, reply in exactly this format:',
    'Thought: <your reasoning>',
    'Action: <the tool name>',
    'Action Input: <a JSON object with the tool\'s arguments>',
    '',
    `You will then receive the result as "${reactObservationPrefix}<result>". Use one Action per reply.`,
    'When you know the final answer, reply:',
    'Thought: <your reasoning>',
    `Action: ${reactFinishAction}`,
    'Action Input: {"answer": "<your final answer>"}',
    '',
    'Tools:',
    ...toolLines,
  ].join('\n');
}

/** The task's prompt with the react instructions in front, merged into one system message. */
export function reactPromptMessages(prompt: readonly PromptMessage[], tools: readonly ToolSpec[]): Message[] {
  const instructions = reactSystemPrompt(tools);
  const [first, ...rest] = prompt;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${instructions}` }, ...rest];
  return [{ role: 'system', content: instructions }, ...prompt];
}

async function runReact(task: Task, context: AgentContext): Promise<AgentOutcome> {
  const { environment, limits } = context;
  const budget = startEpisodeBudget(limits, context.signal, context.clock);
  // The tools the model was told about; the environment enforces its own (a transform may differ).
  const messages = reactPromptMessages(task.prompt, task.tools);
  // Keep the model from writing the observation itself.
  const settings = { ...context.settings, stop: [...(context.settings.stop ?? []), `\n${reactObservationPrefix.trim()}`] };
  let usage: Usage = emptyUsage;
  let turns = 0;
  let toolCalls = 0;
  let unparsableInARow = 0;
  const finish = (termination: Termination): AgentOutcome => ({ termination, messages, usage });

  try {
    for (;;) {
      const turn = await takeModelTurn(context, budget, turns, { messages: [...messages], tools: [], toolChoice: 'none', settings });
      if (turn.type === 'stopped') return finish(turn.termination);
      const { result } = turn;
      turns += 1;
      usage = addUsage(usage, result.usage);
      const text = result.message.content;
      const step = parseReactStep(text);
      if (step === undefined) {
        messages.push(textMessage(text, result.message));
        unparsableInARow += 1;
        if (unparsableInARow >= maxConsecutiveUnparsable) {
          return finish(result.finishReason === 'content-filter' ? 'content-filter' : 'output-unparsable');
        }
        messages.push({ role: 'user', content: reactCorrectionMessage });
        continue;
      }
      unparsableInARow = 0;
      if (step.type === 'finish') {
        messages.push({ role: 'assistant', content: step.answer, toolCalls: [], reasoning: text });
        return finish('final-answer');
      }
      messages.push(textMessage(text, result.message));
      if (toolCalls >= limits.maxToolCalls) return finish('max-tool-calls');
      toolCalls += 1;
      const call = createToolCall(`react_${toolCalls}`, step.action, step.actionInputText);
      const toolResult = await executeCall(environment, call, budget.signal);
      context.emit({ type: 'tool-call-end', name: call.name, ok: toolResult.ok });
      messages.push({ role: 'user', content: `${reactObservationPrefix}${renderToolResult(toolResult)}` });
    }
  } finally {
    budget.dispose();
  }
}

/** The model's turn as plain text: native calls a model emitted anyway are dropped (it was offered none). */
function textMessage(text: string, original: AssistantMessage): AssistantMessage {
  return original.reasoning === undefined
    ? { role: 'assistant', content: text, toolCalls: [] }
    : { role: 'assistant', content: text, toolCalls: [], reasoning: original.reasoning };
}

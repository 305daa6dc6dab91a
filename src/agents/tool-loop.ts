/**
 * Mode `calls`: native function calling, multi-turn. Each turn the model may emit several calls;
 * they run in order and each result goes back as a `tool` message. The episode ends when the model
 * answers without calls ('final-answer'), or when a limit is hit:
 * - 'max-turns' before a generate call that would exceed `limits.maxTurns`;
 * - 'max-tool-calls' when the model emits a call beyond `limits.maxToolCalls` (that call and the
 *   rest of its turn are not executed; the calls within the cap are);
 * - 'time-limit' / 'cancelled' when the episode signal aborts (see episode-budget.ts).
 * A thrown model error propagates: it is infrastructure, not a model fault.
 */
import type { Message } from '../core/message.ts';
import type { Task } from '../core/task.ts';
import type { Termination } from '../core/termination.ts';
import { distinctToolsByName } from '../core/tool.ts';
import type { Usage } from '../core/usage.ts';
import { addUsage, emptyUsage } from '../core/usage.ts';
import type { Agent, AgentContext, AgentOutcome } from './spec.ts';
import { startEpisodeBudget } from './episode-budget.ts';
import { executeCall } from './execute-call.ts';
import { takeModelTurn } from './model-turn.ts';

export function createToolLoopAgent(): Agent {
  return { id: 'tool-loop', mode: 'calls', run: runToolLoop };
}

async function runToolLoop(task: Task, context: AgentContext): Promise<AgentOutcome> {
  const { environment, limits } = context;
  const budget = startEpisodeBudget(limits, context.signal, context.clock);
  const messages: Message[] = [...task.prompt];
  // The tools the model was told about; the environment enforces its own (a transform may differ).
  const tools = distinctToolsByName(task.tools);
  let usage: Usage = emptyUsage;
  let turns = 0;
  let toolCalls = 0;
  const finish = (termination: Termination): AgentOutcome => ({ termination, messages, usage });

  try {
    for (;;) {
      const turn = await takeModelTurn(context, budget, turns, { messages: [...messages], tools, toolChoice: 'auto', settings: context.settings });
      if (turn.type === 'stopped') return finish(turn.termination);
      const { result } = turn;
      turns += 1;
      usage = addUsage(usage, result.usage);
      messages.push(result.message);
      if (result.message.toolCalls.length === 0) {
        // 'error': the provider could not read the call the model wrote (Gemini's MALFORMED_FUNCTION_CALL), the model's fault.
        return finish(result.finishReason === 'content-filter' ? 'content-filter' : result.finishReason === 'error' ? 'output-unparsable' : 'final-answer');
      }
      for (const call of result.message.toolCalls) {
        if (toolCalls >= limits.maxToolCalls) return finish('max-tool-calls');
        const stoppedBeforeCall = budget.stopReason();
        if (stoppedBeforeCall) return finish(stoppedBeforeCall);
        toolCalls += 1;
        const toolResult = await executeCall(environment, call, budget.signal);
        context.emit({ type: 'tool-call-end', name: call.name, ok: toolResult.ok });
        messages.push({ role: 'tool', toolCallId: call.id, toolName: call.name, result: toolResult });
      }
    }
  } finally {
    budget.dispose();
  }
}

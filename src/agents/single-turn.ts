/**
 * Mode `sequence`: one generate call with no tools. The assistant message is the whole answer (a
 * call list); the suite's scorer parses and executes it.
 */
import type { Message } from '../core/message.ts';
import type { Mode } from '../core/mode.ts';
import type { Task } from '../core/task.ts';
import { emptyUsage } from '../core/usage.ts';
import type { Agent, AgentContext, AgentOutcome } from './spec.ts';
import { startEpisodeBudget } from './episode-budget.ts';
import { takeModelTurn } from './model-turn.ts';

export function createSingleTurnAgent(mode: Extract<Mode, 'sequence'>): Agent {
  return {
    id: 'single-turn',
    mode,
    async run(task: Task, context: AgentContext): Promise<AgentOutcome> {
      const budget = startEpisodeBudget(context.limits, context.signal, context.clock);
      const messages: Message[] = [...task.prompt];
      try {
        const turn = await takeModelTurn(context, budget, 0, { messages: [...messages], tools: [], toolChoice: 'none', settings: context.settings });
        if (turn.type === 'stopped') return { termination: turn.termination, messages, usage: emptyUsage };
        const { result } = turn;
        messages.push({ ...result.message, toolCalls: [] });
        return {
          termination: result.finishReason === 'content-filter' ? 'content-filter' : 'final-answer',
          messages,
          usage: result.usage,
        };
      } finally {
        budget.dispose();
      }
    },
  };
}

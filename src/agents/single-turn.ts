/**
 * Modes `sequence` and `code`: one generate call with no tools. The assistant message is the whole
 * answer (a call list or a program); the suite's scorer parses or executes it.
 */
import type { Message } from '../core/message.ts';
import type { Mode } from '../core/mode.ts';
import type { Task } from '../core/task.ts';
import { emptyUsage } from '../core/usage.ts';
import type { Agent, AgentContext, AgentOutcome } from './spec.ts';
import { startEpisodeBudget } from './episode-budget.ts';

export function createSingleTurnAgent(mode: Extract<Mode, 'sequence' | 'code'>): Agent {
  return {
    id: 'single-turn',
    mode,
    async run(task: Task, context: AgentContext): Promise<AgentOutcome> {
      const budget = startEpisodeBudget(context.limits, context.signal, context.clock);
      const messages: Message[] = [...task.prompt];
      try {
        const stopped = budget.stopReason();
        if (stopped) return { termination: stopped, messages, usage: emptyUsage };
        let result;
        try {
          result = await context.model.generate({ messages: [...messages], tools: [], toolChoice: 'none', settings: context.settings, signal: budget.signal });
        } catch (error) {
          const reason = budget.stopReason();
          if (reason) return { termination: reason, messages, usage: emptyUsage };
          throw error;
        }
        context.emit({ type: 'model-call-end', turn: 1, usage: result.usage });
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

/**
 * The webapi agent (mode code): one generation. For tasks set up for a completions endpoint it asks
 * for a plain continuation of the prompt (`completion: true`, stop at the closing fence, 250 new
 * tokens as the paper) and answers with starter + continuation; chat answers are kept as written.
 */
import type { Agent, AgentContext, AgentOutcome } from '../../agents/spec.ts';
import { startEpisodeBudget } from '../../agents/episode-budget.ts';
import type { Message } from '../../core/message.ts';
import type { Task } from '../../core/task.ts';
import { emptyUsage } from '../../core/usage.ts';
import { readWebapiExpected } from './webapi-task.ts';

const completionStop = '\n```\n';
const completionMaxTokens = 250;

export function createWebapiAgent(): Agent {
  return {
    id: 'webapi-single-turn',
    mode: 'code',
    async run(task: Task, context: AgentContext): Promise<AgentOutcome> {
      const expected = readWebapiExpected(task);
      const completion = expected.endpoint === 'completions';
      const budget = startEpisodeBudget(context.limits, context.signal, context.clock);
      const messages: Message[] = [...task.prompt];
      try {
        const settings = completion
          ? { ...context.settings, maxOutputTokens: context.settings.maxOutputTokens ?? completionMaxTokens, stop: [...(context.settings.stop ?? []), completionStop] }
          : context.settings;
        let result;
        try {
          result = await context.model.generate({ messages: [...messages], tools: [], toolChoice: 'none', settings, signal: budget.signal, completion });
        } catch (error) {
          const reason = budget.stopReason();
          if (reason) return { termination: reason, messages, usage: emptyUsage };
          throw error;
        }
        context.emit({ type: 'model-call-end', turn: 1, usage: result.usage });
        const content = completion ? (task.starter ?? '') + result.message.content : result.message.content;
        messages.push({ ...result.message, content, toolCalls: [] });
        return { termination: result.finishReason === 'content-filter' ? 'content-filter' : 'final-answer', messages, usage: result.usage };
      } finally {
        budget.dispose();
      }
    },
  };
}

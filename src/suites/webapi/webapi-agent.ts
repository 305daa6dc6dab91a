/**
 * The webapi agent: the generic code agent, asking a completions endpoint for a plain continuation
 * of the prompt (`completion: true`, stop at the closing fence, 250 new tokens as the paper) and
 * answering with starter + continuation; chat answers are kept as written.
 */
import { createCodeAgent } from '../../agents/code.ts';
import type { Agent } from '../../agents/spec.ts';
import { readWebapiExpected } from './webapi-task.ts';

const completionStop = '\n```\n';
const completionMaxTokens = 250;

export function createWebapiAgent(): Agent {
  return createCodeAgent({
    id: 'webapi-code',
    request(task, request) {
      if (readWebapiExpected(task).endpoint !== 'completions') return request;
      const { settings } = request;
      return {
        ...request,
        completion: true,
        settings: { ...settings, maxOutputTokens: settings.maxOutputTokens ?? completionMaxTokens, stop: [...(settings.stop ?? []), completionStop] },
      };
    },
    answer(task, content) {
      return readWebapiExpected(task).endpoint === 'completions' ? (task.starter ?? '') + content : content;
    },
  });
}

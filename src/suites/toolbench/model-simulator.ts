/**
 * The LLM simulator of StableToolBench's virtual API server (reference §5.4, step 5): a model plays
 * the API server for a call the cache has not seen. Our own prompt with the reference's contract:
 * the API's documentation (tool, API names and descriptions), up to 2048 characters of examples
 * (here the API's documented response template: the reference's cached real answers are not in the
 * data), the input; reply one JSON object `{"error": "", "response": "..."}`; temperature 0, 1024
 * tokens, three tries for valid JSON, else the reference's "Failed to generate fake response".
 * The virtual API stores every answer in the persistent response cache.
 */
import { isJsonObject } from '../../core/json.ts';
import type { LanguageModel } from '../../models/spec.ts';
import type { VirtualResponse } from './response-cache.ts';
import type { StableApi } from './stabletoolbench-data.ts';
import type { Simulator } from './virtual-api.ts';

export const simulatorAttempts = 3;
export const maximumExampleLength = 2048;
export const failedSimulation: VirtualResponse = { error: 'Failed to generate fake response', response: '' };

export const simulatorSystemPrompt = [
  'You play the server of an API. Given its documentation, an example of what it returns, and the input of one',
  'request, write the response the real API would plausibly give. Reply with one JSON object and nothing else:',
  '{"error": "", "response": "<the response body as text>"}.',
  'Keep the response realistic and specific to the input, about 100 to 200 words. If the example is empty or not',
  'useful, ignore it. If the input misses a required parameter or passes one the API does not take, reply with',
  'the error an API server would give in "error" (for example an unexpected keyword argument) and an empty response.',
].join(' ');

export function simulatorUserPrompt(api: StableApi, siblings: readonly StableApi[], arguments_: unknown): string {
  const documentation = {
    tool_description: api.tool_name,
    api_info: siblings.filter((candidate) => candidate.tool_name === api.tool_name).map((candidate) => ({ name: candidate.api_name, description: candidate.api_description })),
    required_parameters: api.required_parameters.map((parameter) => parameter.name),
    optional_parameters: api.optional_parameters.map((parameter) => parameter.name),
  };
  const examples = JSON.stringify(api.template_response ?? {}).slice(0, maximumExampleLength);
  return `API Documentation: ${JSON.stringify(documentation)}\nAPI Examples: ${examples}\nAPI Input: ${JSON.stringify(arguments_)}`;
}

export function createModelSimulator(model: LanguageModel, apis: readonly StableApi[], signal: AbortSignal): Simulator {
  return async (_address, arguments_, api) => {
    const messages = [
      { role: 'system' as const, content: simulatorSystemPrompt },
      { role: 'user' as const, content: `${simulatorUserPrompt(api, apis, arguments_)}\nAPI: ${api.api_name}` },
    ];
    for (let attempt = 0; attempt < simulatorAttempts; attempt += 1) {
      const result = await model.generate({ messages, tools: [], toolChoice: 'none', settings: { temperature: 0, maxOutputTokens: 1024 }, signal });
      const parsed = parseSimulatedResponse(result.message.content);
      if (parsed) return parsed;
    }
    return failedSimulation;
  };
}

/** `{"error", "response"}` out of the model's text (a fenced block is unwrapped); undefined when it is not that. */
export function parseSimulatedResponse(text: string): VirtualResponse | undefined {
  const body = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed) || !('response' in parsed)) return undefined;
  const response = typeof parsed.response === 'string' ? parsed.response : JSON.stringify(parsed.response);
  const error = typeof parsed.error === 'string' ? parsed.error : parsed.error == null ? '' : JSON.stringify(parsed.error);
  return { error, response };
}

/**
 * How StableToolBench shows APIs to a function-calling model (reference §5.3,
 * `api_json_to_openai_json`): one function per API named by tool-naming.ts; parameter types
 * NUMBER -> integer, STRING -> string, BOOLEAN -> boolean, anything else string; the documented
 * default becomes `example_value` (and a JSON Schema `default` when it fits the type, so drift's
 * default flips and swaps see it); a `Finish` function is always added. Observations are cut to
 * 1024 characters + "...". Status codes are the reference's.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { StableApi, StableParameter } from './stabletoolbench-data.ts';
import { functionName } from './tool-naming.ts';

export const finishToolName = 'Finish';
export const maximumObservationLength = 1024;
export const maximumDescriptionLength = 1024;

export const statusCodes = {
  ok: 0, noSuchFunction: 1, inputError: 2, finalAnswer: 3, giveUp: 4, timeout: 5, notFound: 6,
  notSubscribed: 7, unauthorized: 8, tooManyRequests: 9, rateLimit: 10, messageError: 11, requestError: 12,
} as const;
export type StatusCode = typeof statusCodes[keyof typeof statusCodes];

export const finishTool: ToolSpec = {
  name: finishToolName,
  description: 'If you believe that you have obtained a result that can answer the task, please call this function to provide the final answer. Alternatively, if you recognize that you are unable to proceed with the task in the current state, call this function to restart. Remember: you must ALWAYS call this function at the end of your attempt, and the only part that will be shown to the user is the final answer, so it should contain sufficient information.',
  inputSchema: {
    type: 'object',
    properties: {
      return_type: { type: 'string', enum: ['give_answer', 'give_up_and_restart'] },
      final_answer: { type: 'string', description: 'The final answer you want to give the user. You should have this field if "return_type"=="give_answer"' },
    },
    required: ['return_type'],
  },
};

export type ExposedApi = { tool: ToolSpec; api: StableApi };

export function exposeApi(api: StableApi): ToolSpec {
  const properties: JsonObject = {};
  for (const parameter of [...api.required_parameters, ...api.optional_parameters]) properties[parameter.name] = parameterSchema(parameter);
  const description = `This is the subfunction for tool "${api.tool_name}", you can use this tool.${api.api_description ? `The description of this function is: "${api.api_description}"` : ''}`;
  return {
    name: functionName(api.api_name, api.tool_name),
    description: description.slice(0, maximumDescriptionLength),
    inputSchema: { type: 'object', properties, required: api.required_parameters.map((parameter) => parameter.name) },
  };
}

/** The query's tools as the model sees them: one per API (first one wins on a name clash), then Finish. */
export function exposeApis(apis: readonly StableApi[]): { tools: ToolSpec[]; apiByFunction: Map<string, StableApi> } {
  const apiByFunction = new Map<string, StableApi>();
  const tools: ToolSpec[] = [];
  for (const api of apis) {
    const tool = exposeApi(api);
    if (apiByFunction.has(tool.name)) continue;
    apiByFunction.set(tool.name, api);
    tools.push(tool);
  }
  return { tools: [...tools, finishTool], apiByFunction };
}

function parameterSchema(parameter: StableParameter): JsonObject {
  const type = parameter.type === 'NUMBER' ? 'integer' : parameter.type === 'BOOLEAN' ? 'boolean' : 'string';
  const schema: JsonObject = { type, description: parameter.description.slice(0, maximumDescriptionLength) };
  if (parameter.default !== undefined && parameter.default !== '' && parameter.default !== null) {
    schema.example_value = parameter.default;
    const typed = typedDefault(parameter.default, type);
    if (typed !== undefined) schema.default = typed;
  }
  return schema;
}

function typedDefault(value: JsonValue, type: string): JsonValue | undefined {
  const text = typeof value === 'string' ? value.trim() : value;
  if (type === 'integer') {
    const number = typeof text === 'number' ? text : typeof text === 'string' && /^-?[0-9]+$/.test(text) ? Number(text) : Number.NaN;
    return Number.isSafeInteger(number) ? number : undefined;
  }
  if (type === 'boolean') {
    if (typeof text === 'boolean') return text;
    return typeof text === 'string' && /^(true|false)$/i.test(text) ? text.toLowerCase() === 'true' : undefined;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** An observation as the model sees it: cut to 1024 characters + "...". */
export function truncateObservation(text: string, limit = maximumObservationLength): string {
  return text.length > limit ? `${text.slice(0, limit)}...` : text;
}

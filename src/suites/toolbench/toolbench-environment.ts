/**
 * One episode's world for a StableToolBench query: the query's APIs exposed as functions (plus
 * Finish), each call answered by the virtual API (cache, then simulator), observations cut to
 * 1024 characters as the reference shows them. The state records every call with its reference
 * status code and how the episode finished, which the pass-rate judge and the structural metrics
 * (finished with an answer, valid calls, gave up) read.
 */
import type { Environment } from '../../core/environment.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { ToolResult } from '../../core/tool.ts';
import type { FinalStep } from './solvable-pass-rate.ts';
import type { StableApi } from './stabletoolbench-data.ts';
import type { StatusCode } from './tool-exposure.ts';
import { exposeApis, finishToolName, statusCodes, truncateObservation } from './tool-exposure.ts';
import type { createVirtualApi } from './virtual-api.ts';

export type ToolbenchCallRecord = { name: string; arguments: JsonValue; status: StatusCode };
export type ToolbenchState = { calls: ToolbenchCallRecord[]; finalStep: FinalStep };

export type ToolbenchEnvironment = Environment & { state(): ToolbenchState };

export function createToolbenchEnvironment(apis: readonly StableApi[], virtualApi: ReturnType<typeof createVirtualApi>): ToolbenchEnvironment {
  const { tools, apiByFunction } = exposeApis(apis);
  const calls: ToolbenchCallRecord[] = [];
  let finalStep: FinalStep = { kind: 'no-finish' };
  const record = (name: string, arguments_: JsonValue, status: StatusCode): void => void calls.push({ name, arguments: arguments_, status });
  return {
    listTools: () => tools,
    async callTool(call): Promise<ToolResult> {
      const arguments_: JsonValue = call.arguments ?? call.argumentsText;
      if (call.name === finishToolName) return finish(call.arguments, arguments_);
      const api = apiByFunction.get(call.name);
      if (!api) {
        record(call.name, arguments_, statusCodes.noSuchFunction);
        return { ok: false, error: { code: 'tool.unknown', message: `No such function name: ${call.name}` } };
      }
      const { response } = await virtualApi.call(api, call.argumentsText);
      const observation = truncateObservation(JSON.stringify(response));
      if (response.error !== '') {
        record(call.name, arguments_, statusCodes.inputError);
        return { ok: false, error: { code: 'arguments.invalid', message: observation } };
      }
      record(call.name, arguments_, statusCodes.ok);
      return { ok: true, output: observation };
    },
    async snapshotState() {
      return { calls, finalStep } as unknown as JsonValue;
    },
    state: () => ({ calls: [...calls], finalStep }),
    async dispose() {},
  };

  function finish(parsed: JsonObject | undefined, arguments_: JsonValue): ToolResult {
    const returnType = parsed?.return_type;
    if (returnType === 'give_answer') {
      const answer = typeof parsed?.final_answer === 'string' ? parsed.final_answer : '';
      finalStep = { kind: 'answer', finalAnswer: answer };
      record(finishToolName, arguments_, statusCodes.finalAnswer);
      return { ok: true, output: '{"response":"successfully giving the final answer."}' };
    }
    if (returnType === 'give_up_and_restart') {
      finalStep = { kind: 'give-up' };
      record(finishToolName, arguments_, statusCodes.giveUp);
      return { ok: true, output: '{"response":"chose to give up and restart"}' };
    }
    record(finishToolName, arguments_, statusCodes.inputError);
    return { ok: false, error: { code: 'arguments.invalid', message: "Finish: 'return_type' must be 'give_answer' or 'give_up_and_restart'" } };
  }
}

/**
 * The oracle's chain for a query: each recorded relevant API called once with its documented
 * example values (required parameters; optional ones with a typed default), in the recorded order.
 */
export function relevantApiCalls(apis: readonly StableApi[], relevantApis: readonly [string, string][]): { api: StableApi; arguments: JsonObject }[] {
  const chain: { api: StableApi; arguments: JsonObject }[] = [];
  for (const [tool, name] of relevantApis) {
    const api = apis.find((candidate) => candidate.tool_name === tool && candidate.api_name === name);
    if (!api) continue;
    const arguments_: JsonObject = {};
    for (const parameter of api.required_parameters) arguments_[parameter.name] = exampleValue(parameter.default, parameter.type);
    chain.push({ api, arguments: arguments_ });
  }
  return chain;
}

function exampleValue(value: JsonValue | undefined, type: string): JsonValue {
  if (type === 'NUMBER') {
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : 1;
  }
  if (type === 'BOOLEAN') return String(value).toLowerCase() === 'true';
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The live tools of a NESTFUL task for calls and react modes: each call runs the MathQA operation at
 * once, `"$var_N.result$"` arguments resolve to earlier results, and a successful call gets the next
 * label. Errors go back to the model with a failure code. In sequence mode nothing is called: the
 * scorer executes the emitted list afterwards.
 */
import type { Environment } from '../../core/environment.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { ToolCall, ToolResult, ToolSpec } from '../../core/tool.ts';
import { applyOperation, argumentsOf, recordResult } from './execute-calls.ts';
import type { Results } from './execute-calls.ts';
import { parseLenientJson } from './lenient-json.ts';
import { mathOperationsByName } from './math-operations.ts';
import type { NestfulTool } from './nestful-sample.ts';

export type LoggedCall =
  | { name: string; arguments: JsonObject; label: string; ok: true; result: JsonValue }
  | { name: string; argumentsText: string; ok: false; error: { code: string; message: string } };

export type NestfulState = { calls: LoggedCall[] };

export function createNestfulEnvironment(tools: readonly NestfulTool[], toolSpecs: readonly ToolSpec[]): Environment {
  const log: LoggedCall[] = [];
  const results: Results = new Map();
  let successes = 0;

  const fail = (call: ToolCall, code: string, message: string): ToolResult => {
    log.push({ name: call.name, argumentsText: call.argumentsText, ok: false, error: { code, message } });
    return { ok: false, error: { code, message } };
  };

  return {
    listTools: () => [...toolSpecs],
    async callTool(call: ToolCall): Promise<ToolResult> {
      const tool = tools.find((candidate) => candidate.name === call.name);
      const operation = mathOperationsByName.get(call.name);
      if (!tool || !operation) {
        return fail(call, 'tool.unknown', `there is no tool '${call.name}'; use one of: ${tools.map((candidate) => candidate.name).join(', ')}`);
      }
      if (call.arguments === undefined) return fail(call, 'arguments.invalid', `the arguments of '${call.name}' are not a JSON object`);
      const parameterNames = Object.keys(tool.parameters);
      const unknown = Object.keys(call.arguments).filter((name) => !parameterNames.includes(name));
      if (unknown.length > 0) {
        return fail(call, 'arguments.invalid', `'${call.name}' has no parameter ${unknown.map((name) => `'${name}'`).join(', ')}; its parameters are ${parameterNames.join(', ')}`);
      }
      // In the tool's declared parameter order: a native call's argument order carries no meaning. The
      // text is read again for its float literals (`4.0` is a Python float: sqrt rejects it).
      const reread = parseLenientJson(call.argumentsText);
      const given = reread.ok && isJsonObject(reread.value) ? reread.value : call.arguments;
      const applied = applyOperation(operation, argumentsOf(given, parameterNames.filter((name) => Object.hasOwn(given, name))), results);
      if (!applied.ok) return fail(call, applied.failure.code, applied.failure.message);
      const result = applied.value.value;
      successes += 1;
      const label = `$var_${successes}`;
      const output = Object.keys(tool.output_parameters)[0] ?? 'result';
      recordResult(results, label.slice(1), output, applied.value);
      log.push({ name: call.name, arguments: call.arguments, label, ok: true, result });
      return { ok: true, output: { label, [output]: result } };
    },
    async snapshotState(): Promise<JsonValue> {
      return { calls: log } as unknown as JsonValue;
    },
    async dispose(): Promise<void> {},
  };
}

/** Reads the call log back from a snapshot (it went through JSON in the store). */
export function loggedCalls(state: JsonValue): LoggedCall[] {
  if (!isJsonObject(state) || !Array.isArray(state.calls)) return [];
  return state.calls.filter(isJsonObject) as unknown as LoggedCall[];
}

/**
 * Runs one model-emitted call against the environment, the same way in every agent.
 *
 * A call whose arguments did not parse (`parseError`) is still handed to `environment.callTool` so
 * the environment can log and classify it (environments must not run a tool when
 * `call.arguments === undefined`; they return an error). Whatever the environment answers, the
 * model is told `arguments.invalid` with the parse error, so every suite reports malformed
 * arguments the same way.
 */
import type { Environment } from '../core/environment.ts';
import type { ToolCall, ToolResult } from '../core/tool.ts';

export const invalidArgumentsCode = 'arguments.invalid';

export async function executeCall(environment: Environment, call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
  const result = await environment.callTool(call, { signal });
  if (call.parseError === undefined && call.arguments !== undefined) return result;
  return {
    ok: false,
    error: {
      code: invalidArgumentsCode,
      message: `the arguments of '${call.name}' are not a JSON object (${call.parseError ?? 'missing'}); send a JSON object of parameters`,
    },
  };
}

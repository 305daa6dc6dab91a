/**
 * A LanguageModel driven by a policy instead of an LLM: how builtin/oracle, builtin/random and
 * builtin/planner speak the same protocols a real model does (native tool calls, ReAct text, or a
 * one-shot text output), so the agents, environments and scorers are exercised exactly as in a real run.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { AssistantMessage, Message } from '../../core/message.ts';
import type { Mode } from '../../core/mode.ts';
import { formatReactFinish, formatReactStep, reactObservationPrefix } from '../../core/react-format.ts';
import type { ToolResult, ToolSpec } from '../../core/tool.ts';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../spec.ts';

export type PolicyCall = { name: string; arguments: JsonObject };

export type PolicyStep =
  /** Call tools (in react mode only the first call of a step is sent). */
  | { type: 'calls'; calls: PolicyCall[]; thought?: string }
  /** Answer without calls: ends a multi-turn episode. */
  | { type: 'answer'; text: string }
  /** A raw one-shot output (sequence and code modes). */
  | { type: 'text'; text: string };

export type PolicyState = {
  mode: Mode;
  turn: number;
  tools: readonly ToolSpec[];
  /** Every call this model made so far, with the result it got back. */
  history: readonly { call: PolicyCall; result: ToolResult | undefined }[];
  messages: readonly Message[];
};

export type Policy = (state: PolicyState) => PolicyStep;

export function createScriptedModel(options: { modelId: string; mode: Mode; policy: Policy }): LanguageModel {
  const history: { call: PolicyCall; result: ToolResult | undefined }[] = [];
  let pending: PolicyCall[] = [];
  let turn = 0;
  let callCounter = 0;

  return {
    specificationVersion: 'v1',
    provider: 'builtin',
    modelId: options.modelId,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const results = collectResults(request.messages, pending.length, options.mode);
      pending.forEach((call, index) => history.push({ call, result: results[index] }));
      pending = [];
      const step = options.policy({ mode: options.mode, turn, tools: request.tools, history, messages: request.messages });
      turn += 1;
      let message: AssistantMessage;
      if (step.type === 'calls' && options.mode === 'react') {
        const [call] = step.calls;
        pending = [call];
        message = {
          role: 'assistant',
          content: formatReactStep({ thought: step.thought ?? 'I call the next tool.', action: call.name, actionInput: call.arguments }),
          toolCalls: [],
        };
      } else if (step.type === 'calls') {
        pending = step.calls;
        message = {
          role: 'assistant',
          content: step.thought ?? '',
          // The policy's arguments are JSON already: parsing their text again would make the same object, at a cost
          // (new property names on every task) that was a tenth of an oracle-checked funcgen task's making.
          toolCalls: step.calls.map((call) => ({ id: `call_${(callCounter += 1)}`, name: call.name, argumentsText: JSON.stringify(call.arguments), arguments: call.arguments })),
        };
      } else if (step.type === 'answer' && options.mode === 'react') {
        message = { role: 'assistant', content: formatReactFinish('I know the answer.', step.text), toolCalls: [] };
      } else {
        message = { role: 'assistant', content: step.text, toolCalls: [] };
      }
      return {
        message,
        finishReason: message.toolCalls.length > 0 ? 'tool-calls' : 'stop',
        usage: { inputTokens: 0, outputTokens: 0 },
        warnings: [],
        raw: { request: null, response: null },
      };
    },
  };
}

/** The results of the last `count` calls, read back from tool messages or ReAct observations. */
function collectResults(messages: readonly Message[], count: number, mode: Mode): (ToolResult | undefined)[] {
  if (count === 0) return [];
  if (mode === 'react') {
    const last = messages[messages.length - 1];
    if (last?.role !== 'user' || !last.content.startsWith(reactObservationPrefix)) return [undefined];
    return [parseObservation(last.content.slice(reactObservationPrefix.length))];
  }
  const toolMessages = messages.filter((message) => message.role === 'tool').slice(-count);
  return toolMessages.map((message) => (message.role === 'tool' ? message.result : undefined));
}

function parseObservation(text: string): ToolResult {
  try {
    const value = JSON.parse(text) as JsonValue;
    if (value && typeof value === 'object' && !Array.isArray(value) && 'error' in value && Object.keys(value).length === 1) {
      const error = value.error as { code?: unknown; message?: unknown };
      return { ok: false, error: { code: String(error?.code ?? 'error'), message: String(error?.message ?? '') } };
    }
    return { ok: true, output: value };
  } catch {
    return { ok: true, output: text };
  }
}

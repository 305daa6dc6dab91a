/**
 * In calls and react modes a model sees each result and may pass the value itself instead of writing
 * "$var_N.result$" (the instruction allows both). The sequence metrics compare references, so a value
 * that equals an earlier call's result, and is not a number the question itself states, is read as a
 * reference to the latest call that produced it. Execution (the win rate) is unaffected: it already ran.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { jsonEqual } from '../../core/json.ts';

export type ExecutedCall = { name: string; label: string; arguments: JsonObject; result: JsonValue; output: string };

export function groundResultValues(calls: readonly ExecutedCall[], question: string): JsonObject[] {
  const stated = new Set((question.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number));
  return calls.map((call, index) => {
    const grounded: JsonObject = {};
    for (const [name, value] of Object.entries(call.arguments)) {
      grounded[name] = typeof value === 'number' && !stated.has(value) ? referenceTo(value, calls.slice(0, index)) ?? value : value;
    }
    return { name: call.name, label: call.label, arguments: grounded };
  });
}

function referenceTo(value: number, earlier: readonly ExecutedCall[]): string | undefined {
  for (let index = earlier.length - 1; index >= 0; index -= 1) {
    const call = earlier[index];
    if (jsonEqual(call.result, value)) return `${call.label}.${call.output}$`;
  }
  return undefined;
}

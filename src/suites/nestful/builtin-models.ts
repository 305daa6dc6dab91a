/**
 * Models that need no LLM. oracle: the gold sequence in the mode's protocol (the JSON list in sequence
 * mode; in calls/react mode one gold call per turn, its references pointing at the labels the
 * environment gave the real earlier calls). random: random tools with random arguments (the floor).
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import type { PolicyCall, PolicyState, PolicyStep } from '../../models/builtin/scripted-model.ts';
import { createScriptedModel } from '../../models/builtin/scripted-model.ts';
import type { BuiltinModel } from '../spec.ts';
import { parseLenientJson } from './lenient-json.ts';
import { resultPseudoCall } from './nestful-sample.ts';
import { nestfulExpected } from './nestful-task.ts';
import { pythonFloatRepr } from './python-format.ts';

function goldCalls(task: Task): JsonObject[] {
  const parsed = parseLenientJson(nestfulExpected(task).outputJson);
  return parsed.ok && Array.isArray(parsed.value) ? parsed.value.filter(isJsonObject).filter((call) => call.name !== resultPseudoCall) : [];
}

/**
 * The reference to a real earlier call's output ("$var_N.<field>$" with the label the environment gave
 * it), found through the gold label it stands for. References rather than values keep the oracle's
 * sequence exact on the sequence metrics, whatever numbers the question states.
 */
function resolveFromHistory(value: JsonValue, calls: readonly JsonObject[], state: PolicyState): JsonValue {
  if (typeof value !== 'string' || !value.startsWith('$')) return value;
  const body = value.replace(/^\$/, '').replace(/\$$/, '');
  const [label, field] = body.split('.', 2);
  const index = calls.findIndex((call) => typeof call.label === 'string' && call.label.replaceAll('$', '') === label);
  const result = index >= 0 ? state.history[index]?.result : undefined;
  if (!result?.ok || !isJsonObject(result.output) || typeof result.output.label !== 'string') return value;
  return `${result.output.label}.${field ?? 'result'}$`;
}

function oraclePolicy(task: Task) {
  const calls = goldCalls(task);
  return (state: PolicyState): PolicyStep => {
    if (state.mode === 'sequence' || state.mode === 'code') return { type: 'text', text: nestfulExpected(task).outputJson };
    const next = calls[state.history.length];
    if (next === undefined) {
      const last = state.history[state.history.length - 1]?.result;
      const answer = last?.ok && isJsonObject(last.output) ? last.output.result : null;
      return { type: 'answer', text: typeof answer === 'number' ? pythonFloatRepr(answer) : JSON.stringify(answer) };
    }
    const callArguments: JsonObject = {};
    for (const [name, value] of Object.entries(isJsonObject(next.arguments) ? next.arguments : {})) callArguments[name] = resolveFromHistory(value, calls, state);
    return { type: 'calls', calls: [{ name: String(next.name), arguments: callArguments }], thought: `I call ${String(next.name)}.` };
  };
}

function randomCall(rng: Rng, state: PolicyState, task: Task, index: number, referenceable: boolean): PolicyCall & { label: string } {
  const tool = rng.pick(task.tools);
  const properties = isJsonObject(tool.inputSchema.properties) ? Object.keys(tool.inputSchema.properties) : [];
  const callArguments: JsonObject = {};
  for (const name of properties) {
    callArguments[name] = referenceable && index > 1 && rng.bool(0.4) ? `$var_${rng.int(1, index - 1)}.result$` : rng.int(0, 100);
  }
  void state;
  return { name: tool.name, arguments: callArguments, label: `$var_${index}` };
}

function randomPolicy(task: Task, trial: number) {
  const rng = new Rng(deriveSeed(task.seed, 'nestful-random', task.id, trial));
  const length = rng.int(1, 4);
  return (state: PolicyState): PolicyStep => {
    if (task.tools.length === 0) return { type: 'text', text: '[]' };
    if (state.mode === 'sequence' || state.mode === 'code') {
      const calls = Array.from({ length }, (_, index) => randomCall(rng, state, task, index + 1, true));
      return { type: 'text', text: JSON.stringify(calls.map(({ name, arguments: callArguments, label }) => ({ name, arguments: callArguments, label }))) };
    }
    if (state.history.length >= length) return { type: 'answer', text: String(rng.int(0, 100)) };
    const { name, arguments: callArguments } = randomCall(rng, state, task, state.history.length + 1, false);
    return { type: 'calls', calls: [{ name, arguments: callArguments }], thought: 'I try a tool.' };
  };
}

export const nestfulBuiltinModels: Readonly<Record<string, BuiltinModel>> = {
  oracle: {
    description: 'replays the gold call sequence (sequence: the JSON list; calls/react: one call per turn, referencing the real earlier results)',
    create: ({ task, mode }) => createScriptedModel({ modelId: 'oracle', mode, policy: oraclePolicy(task) }),
  },
  random: {
    description: 'random offered tools with random integer arguments',
    create: ({ task, trial, mode }) => createScriptedModel({ modelId: 'random', mode, policy: randomPolicy(task, trial) }),
  },
};

/**
 * Models that need no LLM. oracle: the recorded relevant-API chain (names and arguments read from
 * `expected`, so transforms can map them), each call answered by the simulator, then Finish with an
 * answer built from what the calls returned (calls mode: the Finish function; react mode: the
 * protocol's Finish, which the scorer reads the same way). random: random offered APIs with random
 * integer arguments, then a plain text reply without Finish: the floor.
 */
import type { JsonObject } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import type { PolicyState, PolicyStep } from '../../models/builtin/scripted-model.ts';
import { createScriptedModel } from '../../models/builtin/scripted-model.ts';
import type { BuiltinModel } from '../spec.ts';
import { finishToolName } from './tool-exposure.ts';
import { toolbenchExpected } from './toolbench-task.ts';

/** What the chain returned, cut short: the oracle's final answer. */
export function oracleAnswer(state: PolicyState, task: Task): string {
  const parts = state.history
    .filter((entry) => entry.call.name !== finishToolName)
    .map((entry) => `${entry.call.name}: ${entry.result?.ok ? String(entry.result.output).slice(0, 200) : 'no result'}`);
  return `For "${task.query ?? ''}": ${parts.join('; ')}`;
}

function oraclePolicy(task: Task) {
  const { chain } = toolbenchExpected(task);
  return (state: PolicyState): PolicyStep => {
    const next = chain[state.history.length];
    if (next) return { type: 'calls', calls: [{ name: next.name, arguments: next.arguments }], thought: `I call ${next.name}.` };
    const answer = oracleAnswer(state, task);
    if (state.mode === 'react') return { type: 'answer', text: JSON.stringify({ return_type: 'give_answer', final_answer: answer }) };
    if (state.history.length === chain.length) {
      return { type: 'calls', calls: [{ name: finishToolName, arguments: { return_type: 'give_answer', final_answer: answer } }], thought: 'I have what the user asked for.' };
    }
    return { type: 'answer', text: answer };
  };
}

function randomPolicy(task: Task, trial: number) {
  const rng = new Rng(deriveSeed(task.seed, 'toolbench-random', task.id, trial));
  const length = rng.int(1, 3);
  const apis = task.tools.filter((tool) => tool.name !== finishToolName);
  return (state: PolicyState): PolicyStep => {
    if (state.history.length >= length || apis.length === 0) return { type: 'answer', text: String(rng.int(0, 100)) };
    const tool = rng.pick(apis);
    const arguments_: JsonObject = {};
    for (const name of isJsonObject(tool.inputSchema.properties) ? Object.keys(tool.inputSchema.properties) : []) arguments_[name] = rng.int(0, 100);
    return { type: 'calls', calls: [{ name: tool.name, arguments: arguments_ }], thought: 'I try a tool.' };
  };
}

export const toolbenchBuiltinModels: Readonly<Record<string, BuiltinModel>> = {
  oracle: {
    description: 'the recorded relevant-API chain with documented example values, answered by the simulator, then Finish with an answer',
    create: ({ task, mode }) => createScriptedModel({ modelId: 'oracle', mode, policy: oraclePolicy(task) }),
  },
  random: {
    description: 'random offered APIs with random integer arguments, then a text reply without Finish',
    create: ({ task, trial, mode }) => createScriptedModel({ modelId: 'random', mode, policy: randomPolicy(task, trial) }),
  },
};

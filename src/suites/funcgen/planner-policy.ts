/**
 * builtin/planner: solves from what a model sees — the tool descriptions (types and subtypes) and
 * the prompt — never from `task.expected`. Backward chaining from the target: the function that
 * produces the target variable, then for each parameter either the prompt input of that name or the
 * function whose output has the parameter's type and subtype, recursively. It then calls the plan
 * in dependency order, every call whose inputs are known at once (one per turn in react mode), and
 * answers with the target function's output.
 */
import type { JsonObject } from '../../core/json.ts';
import { memoizeByObject } from '../../core/memoize-by-object.ts';
import { dictionaryObject, setOwn } from '../../core/dictionary-object.ts';
import type { Task } from '../../core/task.ts';
import type { Policy, PolicyCall } from '../../models/builtin/scripted-model.ts';
import type { FunctionSignature } from './function-description.ts';
import { parseFunctionDescription } from './function-description.ts';
import { parseFuncgenPrompt } from './prompt.ts';

type PlannedCall = { name: string; signature: FunctionSignature };
type Plan = { target: string; steps: PlannedCall[]; inputs: Map<string, number>; producerOfKind: Map<string, string> };

const kindKey = (variable: { type: string; subtype: string }): string => `${variable.type} ${variable.subtype}`;

/** The backward-chained plan, or a reason the visible information does not determine one. */
export function planFuncgenTask(task: Task): Plan | { unsolvable: string } {
  // The request is what a planner reads (older task files without a query: the prompt text).
  const promptText = task.query ?? task.prompt.map((message) => message.content).join('\n');
  const prompt = parseFuncgenPrompt(promptText);
  if (!prompt) return { unsolvable: 'the prompt names no target variable' };
  const signatures = new Map<string, FunctionSignature>();
  for (const tool of task.tools) {
    const signature = parseFunctionDescription(tool.description);
    if (signature) signatures.set(tool.name, signature);
  }
  const producerOfVariable = new Map<string, string>();
  const producerOfKind = new Map<string, string>();
  for (const [name, signature] of signatures) {
    producerOfVariable.set(signature.output.name, name);
    producerOfKind.set(kindKey(signature.output), name);
  }
  const inputs = new Map(prompt.inputs.map((input) => [input.name, input.value]));
  const goal = producerOfVariable.get(prompt.target);
  if (goal === undefined) return { unsolvable: `no function produces ${prompt.target}` };

  const steps: PlannedCall[] = [];
  const visited = new Set<string>();
  const visit = (name: string): string | undefined => {
    if (visited.has(name)) return undefined;
    visited.add(name);
    const signature = signatures.get(name) as FunctionSignature;
    for (const parameter of signature.parameters) {
      if (inputs.has(parameter.name)) continue;
      const producer = producerOfKind.get(kindKey(parameter));
      if (producer === undefined) return `nothing provides ${parameter.name} of ${name}`;
      const problem = visit(producer);
      if (problem) return problem;
    }
    steps.push({ name, signature });
    return undefined;
  };
  const problem = visit(goal);
  if (problem) return { unsolvable: problem };
  return { target: goal, steps, inputs, producerOfKind };
}

/**
 * How the planner passes a linked value (an argument it fills from an earlier call's output): as it is, or (for
 * builtin/noisy) sometimes wrong. `seen` is every value the planner has seen so far: prompt inputs, then outputs.
 */
export type LinkedValue = (link: { call: string; parameter: string; value: number; seen: readonly number[] }) => number;

const faithful: LinkedValue = ({ value }) => value;

/**
 * The plan by task object: it depends on the task alone (never mutated once made) and is only read, so every trial
 * of a task shares one instead of parsing every tool description again.
 */
const planOf = memoizeByObject(planFuncgenTask);

export function createPlannerPolicy(task: Task, linkedValue: LinkedValue = faithful): Policy {
  const plan = planOf(task);
  if ('unsolvable' in plan) return () => ({ type: 'answer', text: `I cannot determine the value: ${plan.unsolvable}.` });
  const { steps, sources, stepOf, targetOutput } = preparedPlanOf(plan);
  return (state) => {
    const outputs = new Map<string, number>();
    const called = new Set<string>();
    for (const { call, result } of state.history) {
      called.add(call.name);
      const step = stepOf.get(call.name);
      if (step && result?.ok && isObject(result.output) && typeof result.output[step.signature.output.name] === 'number') {
        outputs.set(call.name, result.output[step.signature.output.name] as number);
      }
    }
    const targetValue = outputs.get(plan.target);
    if (targetValue !== undefined) return { type: 'answer', text: `The value of ${targetOutput} is ${targetValue}.` };
    // Only a linkedValue that may pass a wrong value reads what was seen: the faithful planner skips building it.
    const seen = linkedValue === faithful ? [] : [...plan.inputs.values(), ...outputs.values()];
    const ready: PolicyCall[] = [];
    steps.forEach((step, index) => {
      if (called.has(step.name)) return;
      // Parameter names are fresh random keys in every task: see dictionaryObject.
      const args: JsonObject = dictionaryObject();
      const complete = sources[index].every((source) => {
        // Prompt inputs are copied as they are; only values linked from an earlier output go through linkedValue.
        if (source.input !== undefined) {
          setOwn(args, source.parameter, source.input);
          return true;
        }
        const value = outputs.get(source.producer);
        if (value === undefined) return false;
        setOwn(args, source.parameter, linkedValue({ call: step.name, parameter: source.parameter, value, seen }));
        return true;
      });
      if (complete) ready.push({ name: step.name, arguments: args });
    });
    if (ready.length === 0) return { type: 'answer', text: `I could not compute ${targetOutput}.` };
    return { type: 'calls', calls: ready, thought: `Backward chaining from ${targetOutput}: these calls have all their inputs.` };
  };
}

/** Where each parameter of a planned call gets its value: a prompt input, or the output of the producing call. */
type ArgumentSource = { parameter: string; input?: number; producer: string };

/** A plan's lookups made once per plan (so once per task), not on every turn of every trial. */
const preparedPlanOf = memoizeByObject((plan: Plan) => ({
  steps: plan.steps,
  sources: plan.steps.map((step): ArgumentSource[] => step.signature.parameters.map((parameter) => ({
    parameter: parameter.name,
    input: plan.inputs.get(parameter.name),
    producer: plan.producerOfKind.get(kindKey(parameter)) ?? '',
  }))),
  // The first step of a name, as a search of the steps found it (names are unique in a task's tool list).
  stepOf: new Map([...plan.steps].reverse().map((step) => [step.name, step])),
  targetOutput: plan.steps[plan.steps.length - 1].signature.output.name,
}));

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

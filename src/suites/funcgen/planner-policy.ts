/**
 * builtin/planner: solves from what a model sees — the tool descriptions (types and subtypes) and
 * the prompt — never from `task.expected`. Backward chaining from the target: the function that
 * produces the target variable, then for each parameter either the prompt input of that name or the
 * function whose output has the parameter's type and subtype, recursively. It then calls the plan
 * in dependency order, every call whose inputs are known at once (one per turn in react mode), and
 * answers with the target function's output.
 */
import type { JsonObject } from '../../core/json.ts';
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

export function createPlannerPolicy(task: Task, linkedValue: LinkedValue = faithful): Policy {
  const plan = planFuncgenTask(task);
  return (state) => {
    if ('unsolvable' in plan) return { type: 'answer', text: `I cannot determine the value: ${plan.unsolvable}.` };
    const outputs = new Map<string, number>();
    const called = new Set<string>();
    for (const { call, result } of state.history) {
      called.add(call.name);
      const step = plan.steps.find((candidate) => candidate.name === call.name);
      if (step && result?.ok && isObject(result.output) && typeof result.output[step.signature.output.name] === 'number') {
        outputs.set(call.name, result.output[step.signature.output.name] as number);
      }
    }
    const targetValue = outputs.get(plan.target);
    const targetOutput = plan.steps[plan.steps.length - 1].signature.output.name;
    if (targetValue !== undefined) return { type: 'answer', text: `The value of ${targetOutput} is ${targetValue}.` };
    const seen = [...plan.inputs.values(), ...outputs.values()];
    const ready: PolicyCall[] = [];
    for (const step of plan.steps) {
      if (called.has(step.name)) continue;
      const args: JsonObject = {};
      const complete = step.signature.parameters.every((parameter) => {
        // Prompt inputs are copied as they are; only values linked from an earlier output go through linkedValue.
        const input = plan.inputs.get(parameter.name);
        if (input !== undefined) {
          args[parameter.name] = input;
          return true;
        }
        const value = outputs.get(plan.producerOfKind.get(kindKey(parameter)) ?? '');
        if (value === undefined) return false;
        args[parameter.name] = linkedValue({ call: step.name, parameter: parameter.name, value, seen });
        return true;
      });
      if (complete) ready.push({ name: step.name, arguments: args });
    }
    if (ready.length === 0) return { type: 'answer', text: `I could not compute ${targetOutput}.` };
    return { type: 'calls', calls: ready, thought: `Backward chaining from ${targetOutput}: these calls have all their inputs.` };
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

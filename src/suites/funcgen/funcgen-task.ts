/**
 * The hidden ground truth of a funcgen task (`task.expected`): the whole graph with every value.
 * Checked with zod wherever it is read (once per task object), since tasks come back from files.
 */
import { z } from 'zod';
import { checkOnce } from '../../core/checked-once.ts';
import { ToolForgeError } from '../../core/errors.ts';
import type { Task } from '../../core/task.ts';
import type { FuncgenParams } from './knobs.ts';
import { parseFuncgenParams } from './knobs.ts';
import { memoizeByObject } from '../../core/memoize-by-object.ts';
import { formatFieldPath } from '../../core/field-path.ts';

const variableSchema = z.object({
  name: z.string(),
  type: z.string(),
  subtype: z.string(),
  value: z.number().int(),
});
export type FuncgenVariable = z.infer<typeof variableSchema>;

const parameterSchema = variableSchema.extend({
  /** Where the right value comes from: a prompt input (linked by name) or a function's output (linked by type+subtype). */
  source: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('input') }),
    z.object({ kind: z.literal('function'), function: z.string() }),
  ]),
});
export type FuncgenParameter = z.infer<typeof parameterSchema>;

const functionSchema = z.object({
  name: z.string(),
  role: z.enum(['core', 'connected', 'disconnected']),
  parameters: z.array(parameterSchema),
  output: variableSchema,
});
export type FuncgenFunction = z.infer<typeof functionSchema>;

export const funcgenExpectedSchema = z.object({
  target: z.object({ variable: z.string(), value: z.number().int(), function: z.string() }),
  inputs: z.array(variableSchema),
  functions: z.array(functionSchema),
  /** The core functions in a topological order: the minimal solution. */
  solution: z.array(z.string()),
  /** Salt of the wrong-output hash, so wrong values differ between tasks. */
  wrongOutputSalt: z.number().int(),
  /** [parent, child] function names. */
  edges: z.array(z.tuple([z.string(), z.string()])),
}).superRefine(checkDataflow);

/**
 * The graph's values agree with each other: each parameter holds what its source gives (the prompt input of its name,
 * or its source function's output), the target is its function's output, and the solution names functions that exist.
 * The environment answers calls from these stored values and the oracle replays them, so a task edited by hand into
 * disagreement would pass its own oracle while a model that computes the right values fails: it is refused instead.
 */
function checkDataflow(expected: { target: { variable: string; value: number; function: string }; inputs: FuncgenVariable[]; functions: FuncgenFunction[]; solution: string[] }, context: z.RefinementCtx): void {
  const inputs = new Map(expected.inputs.map((input) => [input.name, input.value]));
  const functions = new Map(expected.functions.map((fn) => [fn.name, fn]));
  expected.functions.forEach((fn, functionIndex) => fn.parameters.forEach((parameter, parameterIndex) => {
    const path = ['functions', functionIndex, 'parameters', parameterIndex, 'value'];
    if (parameter.source.kind === 'input') {
      const value = inputs.get(parameter.name);
      if (value === undefined) context.addIssue({ code: 'custom', path, message: `${fn.name}'s parameter ${parameter.name} is a prompt input, but no input has that name` });
      else if (value !== parameter.value) context.addIssue({ code: 'custom', path, message: `${fn.name}'s parameter ${parameter.name} is ${parameter.value}, but the prompt input ${parameter.name} is ${value}` });
      return;
    }
    const source = functions.get(parameter.source.function);
    if (source === undefined) context.addIssue({ code: 'custom', path, message: `${fn.name}'s parameter ${parameter.name} comes from ${parameter.source.function}, which is not a function of the task` });
    else if (source.output.value !== parameter.value) context.addIssue({ code: 'custom', path, message: `${fn.name}'s parameter ${parameter.name} is ${parameter.value}, but its source ${source.name} returns ${source.output.value}` });
  }));
  const target = functions.get(expected.target.function);
  if (target === undefined) context.addIssue({ code: 'custom', path: ['target', 'function'], message: `${expected.target.function} is not a function of the task` });
  else if (target.output.value !== expected.target.value || target.output.name !== expected.target.variable) {
    context.addIssue({ code: 'custom', path: ['target', 'value'], message: `the target ${expected.target.variable} = ${expected.target.value}, but ${target.name} returns ${target.output.name} = ${target.output.value}` });
  }
  expected.solution.forEach((name, index) => {
    if (!functions.has(name)) context.addIssue({ code: 'custom', path: ['solution', index], message: `${name} is not a function of the task` });
  });
}
export type FuncgenExpected = z.infer<typeof funcgenExpectedSchema>;

export type FuncgenTaskView = { task: Task; expected: FuncgenExpected; params: FuncgenParams };

/**
 * Parsed views by task object: the environment, the oracle and the scorer each read the task, every episode and
 * trial, and zod's parse of the whole graph cost more than the planner's episode itself. Tasks are never mutated
 * after they are made (transforms make new ones), so a view stays true for its task.
 */
export const readFuncgenTask: (task: Task) => FuncgenTaskView = memoizeByObject(parseFuncgenTask);

function parseFuncgenTask(task: Task): FuncgenTaskView {
  // Checked once per task object (the runner checks it when the task enters a run, with this same schema).
  const error = checkOnce(funcgenExpectedSchema, task.expected);
  if (error) {
    const issue = error.issues[0];
    throw new ToolForgeError('suite.invalid-task', `funcgen task '${task.id}' has an invalid ${formatFieldPath(issue?.path ?? [], 'expected')}: ${issue?.message ?? ''}`, {
      fix: 'regenerate the task file with `toolforge generate funcgen`',
    });
  }
  // The checked original, not a parsed copy: the schema has no defaults or transforms, and readers never read keys
  // it does not name; a copy would live as long as its task (this cache), doubling a held task's size.
  return { task, expected: task.expected as FuncgenExpected, params: parseFuncgenParams(task.params) };
}

/** Tasks the generator made in this process, tools from their functions: nothing to check (generator.test.ts checks it). */
const madeWithItsTools = new WeakSet<Task>();

/** Marks a task the generator just made, whose tools it built from the functions; tasks are never mutated once made. */
export function markToolsFromFunctions(task: Task): Task {
  madeWithItsTools.add(task);
  return task;
}

/**
 * An untransformed task's tools are its functions: the same names, each with its parameters as the required integer
 * properties. The environment answers calls from the ground truth, so a task whose tool list was edited (a function
 * the solution needs taken out, a parameter renamed) would pass its oracle while a model, which sees the tools, cannot
 * solve it. Transformed tasks are left alone: rename-tools and drift change the tools on purpose and map calls back.
 */
export function funcgenToolsProblem(task: Task): string | undefined {
  if ((task.origin?.transforms?.length ?? 0) > 0 || madeWithItsTools.has(task)) return undefined;
  const functions = (task.expected as FuncgenExpected).functions;
  const byName = new Map(functions.map((fn) => [fn.name, fn]));
  const listed = new Set<string>();
  for (const [index, tool] of task.tools.entries()) {
    const fn = byName.get(tool.name);
    if (fn === undefined) return `field 'tools[${index}].name': '${tool.name}' is not a function of the task's graph (expected.functions)`;
    listed.add(tool.name);
    const properties = tool.inputSchema.properties;
    const names = typeof properties === 'object' && properties !== null ? Object.keys(properties).sort() : [];
    const parameters = fn.parameters.map((parameter) => parameter.name).sort();
    if (names.join('\u0000') !== parameters.join('\u0000')) {
      return `field 'tools[${index}].inputSchema.properties' (tool '${tool.name}'): lists ${names.join(', ') || 'no parameters'}, but the function takes ${parameters.join(', ') || 'none'}`;
    }
  }
  const missing = functions.filter((fn) => !listed.has(fn.name)).map((fn) => fn.name);
  if (missing.length > 0) return `field 'tools': ${missing.join(', ')} ${missing.length === 1 ? 'is a function' : 'are functions'} of the task's graph with no tool, so no model can call ${missing.length === 1 ? 'it' : 'them'}`;
  return undefined;
}

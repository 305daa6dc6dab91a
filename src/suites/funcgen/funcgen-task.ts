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
});
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

/**
 * builtin/oracle: replays the ground truth through the normal protocol — the minimal core calls in
 * topological order with the right values (all in one turn in calls mode, one per turn in react
 * mode), then the answer. It must pass every task: the suite's self-check.
 */
import type { Policy } from '../../models/builtin/scripted-model.ts';
import type { Task } from '../../core/task.ts';
import { readFuncgenTask } from './funcgen-task.ts';
import { dictionaryObject, setOwn } from '../../core/dictionary-object.ts';

export function createOraclePolicy(task: Task): Policy {
  const { expected } = readFuncgenTask(task);
  const byName = new Map(expected.functions.map((fn) => [fn.name, fn]));
  const calls = expected.solution.map((name) => {
    const fn = byName.get(name);
    if (fn === undefined) throw new Error(`funcgen oracle: solution names unknown function '${name}'`);
    // Parameter names are fresh random keys in every task: see dictionaryObject.
    const args = dictionaryObject<number>();
    for (const parameter of fn.parameters) setOwn(args, parameter.name, parameter.value);
    return { name, arguments: args };
  });
  return (state) => {
    const remaining = calls.slice(state.history.length);
    if (remaining.length > 0) return { type: 'calls', calls: remaining, thought: 'I call the next functions of the solution.' };
    return { type: 'answer', text: `The value of ${expected.target.variable} is ${expected.target.value}.` };
  };
}

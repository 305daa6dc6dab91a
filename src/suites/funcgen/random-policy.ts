/**
 * builtin/random: plausible but random play from visible information — calls to random listed
 * functions with exactly their parameters, each value either one the model has seen (a prompt
 * input or an earlier output) or a random 3-digit number, then a random answer. It should almost
 * never succeed: the baseline a real model must beat.
 */
import { dictionaryObject, setOwn } from '../../core/dictionary-object.ts';
import { z } from 'zod';
import { deriveSeed, Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import type { Policy, PolicyCall } from '../../models/builtin/scripted-model.ts';
import { parseFuncgenPrompt } from './prompt.ts';

const inputSchemaShape = z.object({ properties: z.record(z.string(), z.unknown()) });

export function createRandomPolicy(task: Task, trial: number): Policy {
  const rng = new Rng(deriveSeed(task.seed, 'builtin-random', trial));
  const prompt = parseFuncgenPrompt(task.query ?? task.prompt.map((message) => message.content).join('\n'));
  const target = prompt?.target ?? 'the target';
  const tools = task.tools.map((tool) => {
    inputSchemaShape.parse(tool.inputSchema);
    // The names from the checked schema itself: zod's parsed copy of a record drops a "__proto__" key.
    return { name: tool.name, parameters: Object.keys((tool.inputSchema as { properties: object }).properties) };
  });
  const budget = rng.int(1, task.limits.maxToolCalls);
  let planned = 0;
  return (state) => {
    const known = [...(prompt?.inputs.map((input) => input.value) ?? [])];
    for (const { result } of state.history) {
      if (result?.ok && typeof result.output === 'object' && result.output !== null && !Array.isArray(result.output)) {
        for (const value of Object.values(result.output)) if (typeof value === 'number') known.push(value);
      }
    }
    const someValue = (): number => (known.length > 0 && rng.bool() ? rng.pick(known) : rng.int(100, 999));
    if (planned >= budget || tools.length === 0) return { type: 'answer', text: `The value of ${target} is ${someValue()}.` };
    const count = Math.min(rng.int(1, 3), budget - planned);
    const calls: PolicyCall[] = Array.from({ length: count }, () => {
      const tool = rng.pick(tools);
      // Parameter names are fresh random keys in every task: see dictionaryObject. Values are drawn in parameter order.
      const args = dictionaryObject<number>();
      for (const name of tool.parameters) setOwn(args, name, someValue());
      return { name: tool.name, arguments: args };
    });
    // React mode sends only the first call of a step.
    planned += state.mode === 'react' ? 1 : count;
    return { type: 'calls', calls, thought: 'I try some functions.' };
  };
}

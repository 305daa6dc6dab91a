/**
 * A toolbench task: one StableToolBench solvable query. The hidden `expected` carries the query's
 * API list (the environment exposes it) and the oracle chain: each recorded relevant API called by
 * its exposed function name with documented example values, so transforms can map the calls.
 */
import { z } from 'zod';
import type { JsonObject } from '../../core/json.ts';
import type { Task } from '../../core/task.ts';
import type { PromptMessage } from '../../core/message.ts';
import type { StableApi, StableQuery } from './stabletoolbench-data.ts';
import { exposeApis } from './tool-exposure.ts';
import { relevantApiCalls } from './toolbench-environment.ts';
import { functionName } from './tool-naming.ts';

export const toolbenchSuiteId = 'toolbench';
export const toolbenchSuiteVersion = '1.0.0';

/** StableToolBench's CoT@n chain cap is 12 steps in `method_converter`; our step cap follows it. */
export const toolbenchStepCap = 12;

export const expectedSchema = z.object({
  group: z.string().min(1),
  queryId: z.string().min(1),
  relevantApis: z.array(z.tuple([z.string(), z.string()])),
  apis: z.array(z.object({ category_name: z.string(), tool_name: z.string(), api_name: z.string() }).passthrough()).min(1),
  chain: z.array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) })).min(1),
});

export type ToolbenchExpected = { group: string; queryId: string; relevantApis: [string, string][]; apis: StableApi[]; chain: { name: string; arguments: JsonObject }[] };

export function toolbenchExpected(task: Task): ToolbenchExpected {
  return task.expected as ToolbenchExpected;
}

/** Our wording of the reference's function-calling instructions (ReAct_prompts.py's intent, not its text). */
export const toolbenchSystemPrompt = [
  'You are an assistant that answers the user\'s request by calling the functions you are given, one step at a time.',
  'Each step, think about the state of the task, then call one function; you will see its result and continue.',
  'The results come from real-world APIs and may be incomplete or contain errors: read them and adapt.',
  'When you have the information the user asked for, call Finish with return_type "give_answer" and a final_answer',
  'that contains everything the user needs (only the final answer is shown to them). If you cannot proceed, call',
  'Finish with return_type "give_up_and_restart". Always end with a Finish call.',
].join(' ');

export function buildToolbenchTask(query: StableQuery, options: { seed: number; params: JsonObject }): Task {
  const { tools } = exposeApis(query.apis);
  let chain = relevantApiCalls(query.apis, query.relevantApis);
  // A query whose recorded relevant APIs are all missing from its list still gets one grounded call.
  if (chain.length === 0) chain = relevantApiCalls(query.apis, [[query.apis[0].tool_name, query.apis[0].api_name]]);
  const prompt: PromptMessage[] = [
    { role: 'system', content: toolbenchSystemPrompt },
    { role: 'user', content: query.query },
  ];
  const expected: ToolbenchExpected = {
    group: query.group,
    queryId: query.queryId,
    relevantApis: query.relevantApis,
    apis: query.apis,
    chain: chain.map(({ api, arguments: arguments_ }) => ({ name: functionName(api.api_name, api.tool_name), arguments: arguments_ })),
  };
  return {
    schemaVersion: 1,
    id: `${toolbenchSuiteId}/${query.group}/${query.queryId}`,
    suite: { id: toolbenchSuiteId, version: toolbenchSuiteVersion },
    seed: options.seed,
    params: { ...options.params, group: query.group },
    prompt,
    query: query.query,
    tools,
    modes: ['calls', 'react'],
    expected: JSON.parse(JSON.stringify(expected)) as unknown,
    limits: { maxTurns: toolbenchStepCap + 2, maxToolCalls: toolbenchStepCap + 1, timeLimitMs: 300_000 },
    stats: { apis: query.apis.length, relevantApis: query.relevantApis.length, chain: chain.length },
  };
}

/**
 * One funcgen task from a seed: the graph (graph.ts), then a function schema per node (section 3.2
 * "Function Schema Creation", appendix B.2): random names, a type + unique subtype per variable,
 * 3-digit values. A parameter fed by another function carries that function's output type and
 * subtype under its own random name; a parameter fed by a prompt input has the input's name.
 */
import { dictionaryObject, setOwn } from '../../core/dictionary-object.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import type { ToolSpec } from '../../core/tool.ts';
import { describeFunction } from './function-description.ts';
import type { FuncgenExpected, FuncgenFunction, FuncgenParameter, FuncgenVariable } from './funcgen-task.ts';
import { funcgenExpectedSchema, markToolsFromFunctions } from './funcgen-task.ts';
import { rememberPassed } from '../../core/checked-once.ts';
import type { NodeRole } from './graph.ts';
import { buildFunctionGraph, topologicalOrder } from './graph.ts';
import type { FuncgenParams } from './knobs.ts';
import type { TypePool } from './naming.ts';
import { createNameSource } from './naming.ts';
import { funcgenPrompt } from './prompt.ts';

export const funcgenSuiteId = 'funcgen';
/** Bump whenever generated tasks or grading change. */
export const funcgenVersion = '2.1.0';

/** A prompt-fed parameter on a non-source core function, now and then, so inputs are not only at the roots. */
const extraInputProbability = 0.2;
/** Turns beyond the call cap: room for the answer and a few unparsable react outputs. */
const spareTurns = 5;
const timeLimitMs = 300_000;

/**
 * Everything a funcgen task holds, drawn from its seed: the task object (generateFuncgenTask) and its JSON line
 * (funcgen-task-line.ts) are both written from it, so they cannot draw differently.
 */
export type FuncgenTaskDraw = {
  id: string;
  taskSeed: number;
  params: FuncgenParams;
  /** The whole user message. */
  query: string;
  /** The functions in the order of the task's tools. */
  toolFunctions: FuncgenFunction[];
  expected: FuncgenExpected;
  limits: { maxTurns: number; maxToolCalls: number; timeLimitMs: number };
  stats: { calls: number; depth: number; nodes: number; core: number; connected: number; disconnected: number; inputs: number; edges: number };
};

export function drawFuncgenTask(request: { seed: number; index: number; params: FuncgenParams }): FuncgenTaskDraw {
  const { params } = request;
  const taskSeed = new Rng(request.seed).child('task', request.index).seed;
  const rng = new Rng(taskSeed);
  const graph = buildFunctionGraph(rng.child('graph'), params);
  const nodeCount = graph.roles.length;
  const parentsOf: number[][] = Array.from({ length: nodeCount }, () => []);
  for (const [parent, child] of graph.edges) parentsOf[child].push(parent);

  const inputRng = rng.child('inputs');
  const inputCounts = graph.roles.map((role, node) => {
    if (role === 'connected') return 0;
    if (parentsOf[node].length === 0) return inputRng.int(1, 2);
    return role === 'core' && inputRng.bool(extraInputProbability) ? 1 : 0;
  });
  const poolOf = (role: NodeRole): TypePool => (role === 'disconnected' ? 'distractor' : 'core');
  // Variables per type pool: each function's output plus its prompt inputs.
  const variableCounts: Record<TypePool, number> = { core: 0, distractor: 0 };
  graph.roles.forEach((role, node) => { variableCounts[poolOf(role)] += 1 + inputCounts[node]; });

  const names = createNameSource(rng.child('names'), variableCounts);
  const values = rng.child('values');
  const order = rng.child('order');
  const newVariable = (pool: TypePool): FuncgenVariable => {
    const name = names.variableName();
    const { type, subtype } = names.variableKind(pool);
    return { name, type, subtype, value: values.int(100, 999) };
  };
  const functionNames = graph.roles.map(() => names.functionName());
  const outputs = graph.roles.map((role) => newVariable(poolOf(role)));
  const inputs: FuncgenVariable[] = [];
  const functions: FuncgenFunction[] = graph.roles.map((role, node) => {
    const linked: FuncgenParameter[] = parentsOf[node].map((parent) => ({
      name: names.variableName(),
      type: outputs[parent].type,
      subtype: outputs[parent].subtype,
      value: outputs[parent].value,
      source: { kind: 'function', function: functionNames[parent] },
    }));
    const own: FuncgenParameter[] = Array.from({ length: inputCounts[node] }, () => {
      const input = newVariable(poolOf(role));
      inputs.push(input);
      return { name: input.name, type: input.type, subtype: input.subtype, value: input.value, source: { kind: 'input' } };
    });
    return { name: functionNames[node], role, parameters: order.shuffle([...linked, ...own]), output: outputs[node] };
  });

  const coreOrder = topologicalOrder(params.core, graph.edges);
  if (coreOrder === undefined) throw new Error('funcgen: generated a cyclic core graph (generator bug)');
  const targetFunction = functions[graph.target];
  const expected: FuncgenExpected = {
    target: { variable: targetFunction.output.name, value: targetFunction.output.value, function: targetFunction.name },
    inputs,
    functions,
    solution: coreOrder.map((node) => functionNames[node]),
    wrongOutputSalt: taskSeed,
    edges: graph.edges.map(([parent, child]) => [functionNames[parent], functionNames[child]]),
  };
  const maxToolCalls = 2 * params.core;
  // The prompt's inputs are shuffled before the tools: the order of draws is part of the seed's meaning.
  const query = funcgenPrompt(targetFunction.output.name, order.shuffle(inputs));
  return {
    id: `${funcgenSuiteId}/${request.seed}/${request.index}`,
    taskSeed,
    params,
    query,
    toolFunctions: order.shuffle(functions),
    expected,
    limits: { maxTurns: maxToolCalls + spareTurns, maxToolCalls, timeLimitMs },
    stats: {
      calls: params.core,
      depth: params.depth,
      nodes: nodeCount,
      core: params.core,
      connected: params.connected,
      disconnected: params.disconnected,
      inputs: inputs.length,
      edges: graph.edges.length,
    },
  };
}

export function generateFuncgenTask(request: { seed: number; index: number; params: FuncgenParams }): Task {
  const draw = drawFuncgenTask(request);
  // Sound by construction (generator.test.ts checks it with zod and funcgenToolsProblem over a grid of knobs): the
  // oracle's and the run's checks of a fresh task then cost lookups, not a zod pass over the graph (a tenth of making
  // an oracle-checked task) and a walk of its tools.
  rememberPassed(funcgenExpectedSchema, draw.expected);
  return markToolsFromFunctions({
    schemaVersion: 1,
    id: draw.id,
    suite: { id: funcgenSuiteId, version: funcgenVersion },
    seed: draw.taskSeed,
    params: { ...draw.params },
    // The whole user message is the request: funcgen has no scaffolding.
    prompt: [{ role: 'user', content: draw.query }],
    query: draw.query,
    tools: draw.toolFunctions.map(funcgenToolSpec),
    modes: ['calls', 'react'],
    expected: draw.expected,
    limits: draw.limits,
    stats: draw.stats,
  });
}

/** Integer parameters, all required, no extras (the paper's `strict` OpenAI schema). */
export function funcgenToolSpec(fn: FuncgenFunction): ToolSpec {
  const properties = dictionaryObject<{ type: 'integer' }>();
  const required: string[] = [];
  for (const parameter of fn.parameters) {
    setOwn(properties, parameter.name, { type: 'integer' });
    required.push(parameter.name);
  }
  return {
    name: fn.name,
    description: describeFunction(fn),
    inputSchema: { type: 'object', properties, required, additionalProperties: false },
  };
}

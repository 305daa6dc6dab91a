/**
 * Fresh NESTFUL-style math samples (beyond the paper, contamination-free): MathQA operations composed
 * into a random DAG under the knobs
 * - calls: the number of calls;
 * - depth: edges on the longest dependency path (exactly; the last call ends that path);
 * - fanin: at most this many distinct earlier outputs feed one call (our operations take two inputs);
 * - distractors: extra operations offered beside the ones the gold sequence uses.
 * Constants come from the seed; the gold answer comes from executing the gold sequence with the
 * published MathQA semantics (math-operations.ts; max/min are not among them); the question is rendered
 * deterministically from the DAG. No call of a sample is trivial and no answer is 0 (see isTrivial, sane).
 */
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import type { MathOperation, OperationArgument, PythonNumber } from './math-operations.ts';
import { mathOperations, OperationError, runMathOperation } from './math-operations.ts';
import type { NestfulSample, NestfulTool } from './nestful-sample.ts';
import { pythonFloatRepr, pythonJsonDumps, pythonRound, pythonStr } from './python-format.ts';
import { markFloat } from './lenient-json.ts';

export type GeneratorKnobs = { calls: number; depth: number; fanin: number; distractors: number };

/** Operations the generator composes: those with a phrase (safe, well-defined on generated values). */
export const generatorOperations: readonly MathOperation[] = mathOperations.filter((operation) => operation.phrase !== undefined);

export const maximumFanIn = Math.max(...generatorOperations.map((operation) => operation.referenceable?.length ?? 0));

export function checkGeneratorKnobs(knobs: GeneratorKnobs): void {
  if (knobs.depth > knobs.calls - 1) {
    throw new ConfigError('config.invalid-knob', `nestful knob 'depth' is ${knobs.depth} but ${knobs.calls} calls allow a depth of at most ${knobs.calls - 1}`, {
      fix: `--set depth=<0..${knobs.calls - 1}>, or raise calls to at least ${knobs.depth + 1} (--set calls=${knobs.depth + 1})`,
    });
  }
  if (knobs.depth > 0 && knobs.fanin < 1) {
    throw new ConfigError('config.invalid-knob', "nestful knob 'fanin' must be at least 1 when depth > 0", { fix: '--set fanin=1' });
  }
}

/** A constant a word problem would use: mostly small integers, sometimes one decimal. */
function constant(rng: Rng, operation: MathOperation, position: number): number {
  if (operation.name === 'power' && position === 1) return rng.int(2, 3);
  if (operation.name === 'negate_prob') return rng.int(1, 9) / 10;
  return rng.bool(0.8) ? rng.int(2, 60) : rng.int(11, 299) / 10;
}

type Node = { operation: MathOperation; inputs: (number | { call: number })[]; value: PythonNumber };

/**
 * A value a call may produce: finite, not huge, and not zero or so small that the gold answer's four
 * decimals would round it to 0.0 (an answer of 0 is reached by degenerate calls and rewards guessing).
 */
const sane = (value: number): boolean => Number.isFinite(value) && Math.abs(value) <= 1e9 && Math.abs(value) >= 1e-3;

/**
 * A trivial call changes nothing: its result equals one of its inputs (multiplying by 1, 1 - 0.5, the
 * square of 1) or a value computed before (undoing an earlier call: the square root of a square, the
 * negative of a negative). A sample reached through such calls is not emitted.
 */
function isTrivial(value: number, inputs: readonly number[], earlier: readonly Node[]): boolean {
  return inputs.includes(value) || earlier.some((node) => node.value.value === value);
}

/** A generator constant as a Python value: an integer-valued one is written (and executed) as an int. */
const constantArgument = (value: number): OperationArgument => ({ value, isFloat: !Number.isInteger(value) });

/** Builds one DAG; undefined when the drawn constants made some value unusable (the caller retries). */
function tryBuild(rng: Rng, knobs: GeneratorKnobs): Node[] | undefined {
  const { calls, depth } = knobs;
  const fanin = Math.min(knobs.fanin, maximumFanIn);
  // The spine s_0 < ... < s_depth realises the depth; it ends at the last call, which is the answer.
  const spine = depth === 0 ? [] : [...rng.sample(Array.from({ length: calls - 1 }, (_, index) => index), depth).sort((a, b) => a - b), calls - 1];
  // Calls off the spine stay below the last level so their output can still feed the final call.
  const capacity = Array.from({ length: calls }, () => Math.max(0, depth - 1));
  spine.forEach((position, level) => { capacity[position] = level; });
  const level: number[] = [];
  const consumed = new Set<number>();
  const nodes: Node[] = [];
  for (let index = 0; index < calls; index += 1) {
    const spineLevel = spine.indexOf(index);
    const required = spineLevel > 0 ? [spine[spineLevel - 1]] : [];
    const candidates = Array.from({ length: index }, (_, earlier) => earlier)
      .filter((earlier) => !required.includes(earlier) && level[earlier] + 1 <= capacity[index]);
    const maximumInputs = Math.min(fanin, required.length + candidates.length);
    let inputCount = required.length;
    // Prefer consuming outputs nobody used yet, so few calls dangle.
    const unconsumed = candidates.filter((earlier) => !consumed.has(earlier));
    const isLast = index === calls - 1;
    if (maximumInputs > inputCount && isLast && unconsumed.length > 0) inputCount = Math.min(maximumInputs, required.length + unconsumed.length);
    else if (maximumInputs > inputCount && (unconsumed.length > 0 ? rng.bool(0.85) : rng.bool(0.3))) inputCount = rng.int(inputCount + 1, maximumInputs);
    const extra = [...rng.shuffle(unconsumed), ...rng.shuffle(candidates.filter((earlier) => consumed.has(earlier)))].slice(0, inputCount - required.length);
    const producers = [...required, ...extra];
    const usable = generatorOperations.filter((operation) => (operation.referenceable?.length ?? 0) >= Math.max(producers.length, 0)
      && (producers.length > 0 || operation.parameters.length >= 1));
    let built: Node | undefined;
    for (let attempt = 0; attempt < 12 && !built; attempt += 1) {
      const operation = rng.pick(usable);
      const positions = rng.sample(operation.referenceable ?? [], producers.length);
      const inputs: Node['inputs'] = operation.parameters.map((_, position) => {
        const slot = positions.indexOf(position);
        return slot >= 0 ? { call: producers[slot] } : constant(rng, operation, position);
      });
      const values = inputs.map((input) => (typeof input === 'number' ? constantArgument(input) : { value: nodes[input.call].value.value, isFloat: nodes[input.call].value.kind === 'float' }));
      try {
        const value = runMathOperation(operation, values);
        if (sane(value.value) && !isTrivial(value.value, values.map((argument) => argument.value as number), nodes)) built = { operation, inputs, value };
      } catch (error) {
        if (!(error instanceof OperationError)) throw error;
      }
    }
    if (!built) return undefined;
    nodes.push(built);
    for (const producer of producers) consumed.add(producer);
    level[index] = producers.length === 0 ? 0 : Math.max(...producers.map((producer) => level[producer])) + 1;
  }
  return nodes;
}

function letter(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : `X${index}`;
}

/** "Let A be the sum of 150 and 2. ... What is B divided by C?" */
export function renderQuery(nodes: readonly { operation: MathOperation; inputs: (number | { call: number })[] }[]): string {
  const phrase = (node: (typeof nodes)[number]): string => (node.operation.phrase ?? node.operation.name)
    .replace(/\{(\d+)\}/g, (_, position: string) => {
      const input = node.inputs[Number(position)];
      return typeof input === 'number' ? pythonStr(input) : letter(input.call);
    });
  const sentences = nodes.slice(0, -1).map((node, index) => `Let ${letter(index)} be ${phrase(node)}.`);
  const last = nodes[nodes.length - 1];
  sentences.push(`What is ${phrase(last)}?`);
  return sentences.join(' ');
}

function toolOf(operation: MathOperation): NestfulTool {
  const parameters: JsonObject = {};
  operation.parameters.forEach((parameter, index) => { parameters[`arg_${index}`] = { description: parameter.description, type: parameter.type }; });
  return { name: operation.name, description: operation.description, parameters, output_parameters: { result: { ...operation.output } } };
}

export type GeneratedSample = { sample: NestfulSample; nodes: Node[] };

export function generateSample(seed: number, index: number, knobs: GeneratorKnobs): GeneratedSample {
  checkGeneratorKnobs(knobs);
  let nodes: Node[] | undefined;
  for (let attempt = 0; attempt < 200 && !nodes; attempt += 1) nodes = tryBuild(new Rng(deriveSeed(seed, 'nestful', index, attempt)), knobs);
  if (!nodes) throw new ConfigError('suite.unsolvable-task', `nestful: could not build a sample for seed ${seed} index ${index}`, { fix: 'try other knob values' });
  const rng = new Rng(deriveSeed(seed, 'nestful-tools', index));
  const output: JsonValue[] = nodes.map((node, position) => {
    const callArguments: JsonObject = {};
    node.inputs.forEach((input, slot) => {
      callArguments[`arg_${slot}`] = typeof input === 'number' ? input : `$var_${input.call + 1}.result$`;
      if (typeof input === 'number' && !Number.isInteger(input)) markFloat(callArguments, `arg_${slot}`);
    });
    return { name: node.operation.name, label: `$var_${position + 1}`, arguments: callArguments };
  });
  const used = [...new Set(nodes.map((node) => node.operation.name))];
  const others = mathOperations.filter((operation) => !used.includes(operation.name));
  const distractors = rng.sample(others, Math.min(knobs.distractors, others.length));
  const tools = rng.shuffle([...used.map((name) => mathOperations.find((operation) => operation.name === name)!), ...distractors]).map(toolOf);
  const answer = pythonRound(nodes[nodes.length - 1].value.value, 4);
  return {
    nodes,
    sample: {
      sampleId: `${seed}/${index}`,
      input: renderQuery(nodes),
      flavour: 'math',
      outputJson: pythonJsonDumps(output),
      // Always a float literal, as MathQA answers are, so predictions round to its decimals.
      goldAnswerJson: pythonFloatRepr(answer),
      tools,
    },
  };
}

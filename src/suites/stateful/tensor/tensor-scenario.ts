/**
 * The tensor state machine (paper III-C's running example): variables are tensors with known shapes (and whether
 * `view` may still apply); each step solves the shape equations of every operation for the tensors in scope, and
 * creates fixture weights on the fly (a linear layer's [out, in] weight, a convolution kernel, a tensor to
 * concatenate), persisted in the task and loaded with `torch.load` in the initialization block.
 */
import type { JsonValue } from '../../../core/json.ts';
import { Rng } from '../../../core/rng.ts';
import type { BranchCondition, Candidate, Scenario, SharedProgramParts } from '../trace-model.ts';
import { conv2dShape, numel, type Padding } from './tensor.ts';

export const tensorApis = ['cat', 'transpose', 'permute', 'split', 'view', 'reshape', 'linear', 'conv2d'] as const;

/** Largest tensor a program creates: keeps fixtures and results small. */
const maximumElements = 1536;

type TensorVariable = { expression: string; variable: string; shape: number[]; contiguous: boolean };
type ListVariable = { name: string; length: number };
type Touch = { kind: 'tensor'; expression: string } | { kind: 'list'; name: string };
type Fixtures = Map<string, { shape: number[]; values: number[] }>;

export class TensorTraceState {
  constructor(
    readonly shared: SharedProgramParts,
    readonly fixtures: Fixtures,
    readonly tensors: TensorVariable[],
    readonly lists: ListVariable[],
    readonly touched: Touch[],
  ) {}

  clone(): TensorTraceState {
    return new TensorTraceState(this.shared, this.fixtures, this.tensors.map((item) => ({ ...item, shape: [...item.shape] })), this.lists.map((item) => ({ ...item })), [...this.touched]);
  }
}

function shapeText(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

/** A saved tensor (values in [-1, 1], two decimals) declared `let name = torch.load('name');`. */
function addFixture(state: TensorTraceState, prefix: string, shape: number[], seed: number): TensorVariable {
  const rng = new Rng(seed);
  const name = state.shared.name(prefix);
  state.fixtures.set(name, { shape, values: Array.from({ length: numel(shape) }, () => rng.int(-100, 100) / 100) });
  state.shared.declare(name, `let ${name} = torch.load(${JSON.stringify(name)}); // shape ${shapeText(shape)}`);
  const variable = { expression: name, variable: name, shape, contiguous: true };
  state.tensors.push(variable);
  return variable;
}

function produce(state: TensorTraceState, shape: number[], contiguous: boolean, call: string): { statements: string[]; produces: string[] } {
  const name = state.shared.name('result');
  state.tensors.push({ expression: name, variable: name, shape, contiguous });
  state.touched.push({ kind: 'tensor', expression: name });
  return { statements: [`let ${name} = ${call};`], produces: [name] };
}

/** Whether a permutation leaves the data viewable: the dimensions with extent > 1 keep their order (as tensor.ts). */
function keepsOrder(shape: readonly number[], order: readonly number[]): boolean {
  const moving = order.filter((axis) => shape[axis] > 1);
  return moving.every((axis, position) => position === 0 || moving[position - 1] < axis);
}

function randomFactorization(count: number, rng: Rng): number[] {
  const rank = rng.int(1, 4);
  const factors: number[] = [];
  let rest = count;
  for (let index = 0; index < rank - 1; index += 1) {
    const divisors = Array.from({ length: rest }, (_, value) => value + 1).filter((value) => rest % value === 0 && value <= 12);
    const factor = rng.pick(divisors);
    factors.push(factor);
    rest /= factor;
  }
  factors.push(rest);
  return factors;
}

function initialState(rng: Rng, shared: SharedProgramParts): TensorTraceState {
  const state = new TensorTraceState(shared, new Map(), [], [], []);
  const count = rng.int(1, 2);
  for (let index = 0; index < count; index += 1) {
    const rank = rng.int(2, 4);
    const shape = rank === 4 ? [rng.int(1, 2), rng.int(1, 3), rng.int(3, 6), rng.int(3, 6)] : Array.from({ length: rank }, () => rng.int(1, 6));
    const variable = addFixture(state, 'user_tensor', shape, rng.int(0, 2 ** 30));
    state.touched.push({ kind: 'tensor', expression: variable.expression });
  }
  return state;
}

function tensorOf(state: TensorTraceState, expression: string): TensorVariable {
  const found = state.tensors.find((item) => item.expression === expression);
  if (!found) throw new Error(`no tensor ${expression}`);
  return found;
}

function candidates(state: TensorTraceState, rng: Rng): Candidate<TensorTraceState>[] {
  const result: Candidate<TensorTraceState>[] = [];
  for (const tensor of state.tensors) {
    const { expression, shape } = tensor;
    const rank = shape.length;
    const base = { isApiCall: true, consumes: [tensor.variable] };
    if (rank >= 2) {
      const [first, second] = rng.sample(shape.map((_, axis) => axis), 2).sort((left, right) => left - right);
      const swapped = [...shape];
      [swapped[first], swapped[second]] = [swapped[second], swapped[first]];
      const swapOrder = shape.map((_, axis) => axis);
      [swapOrder[first], swapOrder[second]] = [swapOrder[second], swapOrder[first]];
      result.push({ ...base, transition: 'transpose', parameterKey: `${expression}:${first},${second}`,
        apply: (target) => produce(target, swapped, tensor.contiguous && keepsOrder(shape, swapOrder), `torch.transpose(${expression}, ${first}, ${second})`) });
      const order = rng.shuffle(shape.map((_, axis) => axis));
      if (order.some((axis, position) => axis !== position)) {
        const contiguous = tensor.contiguous && keepsOrder(shape, order);
        result.push({ ...base, transition: 'permute', parameterKey: `${expression}:${order.join(',')}`,
          apply: (target) => produce(target, order.map((axis) => shape[axis]), contiguous, `torch.permute(${expression}, ${shapeText(order)})`) });
      }
    }
    const splittable = shape.map((size, axis) => ({ size, axis })).filter((item) => item.size >= 2);
    if (splittable.length > 0) {
      const { size, axis } = rng.pick(splittable);
      const chunk = rng.int(1, size - 1);
      result.push({ ...base, transition: 'split', parameterKey: `${expression}:${chunk}@${axis}`,
        apply: (target) => {
          const name = target.shared.name('result');
          const length = Math.ceil(size / chunk);
          target.lists.push({ name, length });
          for (const index of [...new Set([0, length - 1])]) {
            const partShape = [...shape];
            partShape[axis] = Math.min(chunk, size - index * chunk);
            target.tensors.push({ expression: `${name}[${index}]`, variable: name, shape: partShape, contiguous: tensor.contiguous && shape.slice(0, axis).every((item) => item === 1) });
          }
          target.touched.push({ kind: 'list', name });
          return { statements: [`let ${name} = torch.split(${expression}, ${chunk}, ${axis});`], produces: [name] };
        } });
    }
    const count = numel(shape);
    const newShape = randomFactorization(count, rng);
    const inferred = rng.bool(0.4) && newShape.length > 1 ? rng.int(0, newShape.length - 1) : -1;
    const written = newShape.map((item, index) => (index === inferred ? -1 : item));
    if (tensor.contiguous) {
      result.push({ ...base, transition: 'view', parameterKey: `${expression}:${newShape.join(',')}`,
        apply: (target) => produce(target, newShape, true, `torch.view(${expression}, ${shapeText(written)})`) });
    } else {
      result.push({ ...base, transition: 'reshape', parameterKey: `${expression}:${newShape.join(',')}`,
        apply: (target) => produce(target, newShape, true, `torch.reshape(${expression}, ${shapeText(written)})`) });
    }
    if (rank >= 1) {
      const axis = rng.int(0, rank - 1);
      const otherShape = [...shape];
      otherShape[axis] = rng.int(1, 4);
      const outShape = [...shape];
      outShape[axis] += otherShape[axis];
      const partner = state.tensors.find((other) => other !== tensor && other.shape.length === rank && other.shape.every((size, index) => index === axis || size === shape[index]));
      if (numel(outShape) <= maximumElements) {
        const seed = rng.int(0, 2 ** 30);
        result.push({ ...base, transition: 'cat', parameterKey: `${expression}:${partner ? partner.expression : shapeText(otherShape)}@${axis}`,
          consumes: partner ? [tensor.variable, partner.variable] : [tensor.variable],
          apply: (target) => {
            const other = partner ? tensorOf(target, partner.expression) : addFixture(target, 'user_tensor', otherShape, seed);
            const joined = [...shape];
            joined[axis] += other.shape[axis];
            return produce(target, joined, true, `torch.cat([${expression}, ${other.expression}], ${axis})`);
          } });
      }
      const outFeatures = rng.int(2, 6);
      const withBias = rng.bool();
      const linearShape = [...shape.slice(0, -1), outFeatures];
      if (numel(linearShape) <= maximumElements) {
        const seed = rng.int(0, 2 ** 30);
        result.push({ ...base, transition: 'linear', parameterKey: `${expression}:${outFeatures}${withBias ? '+b' : ''}`,
          apply: (target) => {
            const weightRng = new Rng(seed);
            const weight = addFixture(target, 'user_weight', [outFeatures, shape[rank - 1]], weightRng.int(0, 2 ** 30));
            const bias = withBias ? addFixture(target, 'user_bias', [outFeatures], weightRng.int(0, 2 ** 30)) : undefined;
            return produce(target, linearShape, true, `F.linear(${expression}, ${weight.expression}${bias ? `, ${bias.expression}` : ''})`);
          } });
      }
    }
    if (rank === 4 || rank === 3) {
      const channels = shape[rank - 3];
      const kernel = [rng.int(1, 3), rng.int(1, 3)];
      const outChannels = rng.int(1, 4);
      const padding = rng.pick<Padding>([0, 1, 'same', 'valid']);
      const stride = padding === 'same' ? 1 : rng.int(1, 2);
      const dilation = rng.int(1, 2);
      let outShape: number[] | undefined;
      try {
        outShape = conv2dShape(shape, [outChannels, channels, kernel[0], kernel[1]], { stride, padding, dilation });
      } catch {
        outShape = undefined;
      }
      if (outShape && numel(outShape) <= maximumElements && numel([outChannels, channels, ...kernel]) <= maximumElements) {
        const seed = rng.int(0, 2 ** 30);
        const settled = outShape;
        result.push({ ...base, transition: 'conv2d', parameterKey: `${expression}:${outChannels}x${kernel.join('x')}/${stride}/${padding}/${dilation}`,
          apply: (target) => {
            const weight = addFixture(target, 'user_weight', [outChannels, channels, kernel[0], kernel[1]], seed);
            return produce(target, settled, true, `F.conv2d(${expression}, ${weight.expression}, { stride: ${stride}, padding: ${JSON.stringify(padding)}, dilation: ${dilation} })`);
          } });
      }
    }
  }
  // Consumers of a tensor also refresh its pair bridge, so apply keeps `consumes` as the bridges.
  return result;
}

function condition(state: TensorTraceState): BranchCondition | undefined {
  const last = state.touched[state.touched.length - 1];
  if (!last) return undefined;
  if (last.kind === 'list') return { lhs: `${last.name}.length`, value: state.lists.find((item) => item.name === last.name)?.length ?? 0 };
  return { lhs: `${last.expression}.shape`, value: tensorOf(state, last.expression).shape };
}

function resultExpression(state: TensorTraceState): string | undefined {
  const last = state.touched[state.touched.length - 1];
  if (!last) return undefined;
  return last.kind === 'list' ? last.name : last.expression;
}

export const tensorScenario: Scenario<TensorTraceState> = {
  id: 'tensor',
  apis: tensorApis,
  preamble: [],
  initialState,
  candidates,
  condition,
  resultExpression,
  fixtures: (state): JsonValue => ({ tensors: Object.fromEntries(state.fixtures) }),
};

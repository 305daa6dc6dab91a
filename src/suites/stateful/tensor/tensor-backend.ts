/**
 * The tensor scenario's backend: the task's fixture tensors (what `torch.load(name)` returns) and the tensor API
 * as synchronous sandbox bindings (`torch.cat(...)`, `F.conv2d(...)`). Tensors stay in the host; the program holds
 * handles `{ __tensor__, shape, dtype }`, so `t.shape` works in model code and nothing but these functions can
 * touch the data. Operations are pure, so the end state is empty and the oracle is RESULT (compared allclose).
 */
import { z } from 'zod';
import { isJsonObject, type JsonValue } from '../../../core/json.ts';
import type { Binding, BindingFunction } from '../../../sandbox/spec.ts';
import { refuseAllRequests } from '../session/http-bridge.ts';
import type { BackendFactory } from '../stateful-backend.ts';
import { cat, conv2d, linear, permute, reshape, split, Tensor, TensorError, transpose, view, type Conv2dOptions, type Padding } from './tensor.ts';

export const tensorFixturesSchema = z.object({
  tensors: z.record(z.string(), z.object({ shape: z.array(z.number().int().nonnegative()), values: z.array(z.number()) })),
});
export type TensorFixtures = z.infer<typeof tensorFixturesSchema>;

export type TensorHandle = { __tensor__: string; shape: number[]; dtype: 'float32' };

function isHandle(value: unknown): value is TensorHandle {
  return isJsonObject(value) && typeof value.__tensor__ === 'string';
}

/** Host-side registry of the tensors one program created. */
export class TensorRegistry {
  readonly #tensors = new Map<string, Tensor>();
  #next = 0;

  handle(tensor: Tensor): TensorHandle {
    const id = `tensor_${this.#next++}`;
    this.#tensors.set(id, tensor);
    return { __tensor__: id, shape: [...tensor.shape], dtype: 'float32' };
  }

  tensor(value: JsonValue | undefined, what: string): Tensor {
    const found = isHandle(value) ? this.#tensors.get(value.__tensor__) : undefined;
    if (!found) throw new TypeError(`${what} must be a Tensor (a value returned by torch.load or another tensor operation)`);
    return found;
  }

  /** Handles (also inside lists and objects) replaced by `{ shape, values }`. */
  resolve(value: JsonValue | undefined): JsonValue {
    if (value === undefined) return null;
    if (isHandle(value)) {
      const tensor = this.#tensors.get(value.__tensor__);
      return tensor ? { shape: [...tensor.shape], values: [...tensor.values] } : value;
    }
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (isJsonObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.resolve(item)]));
    return value;
  }
}

function integer(value: JsonValue | undefined, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new TypeError(`${what} must be an integer, got ${JSON.stringify(value)}`);
  return value;
}

function integers(value: JsonValue | undefined, what: string): number[] {
  if (!Array.isArray(value)) throw new TypeError(`${what} must be a list of integers, got ${JSON.stringify(value)}`);
  return value.map((item, index) => integer(item, `${what}[${index}]`));
}

function intOrPair(value: JsonValue | undefined, what: string): number | [number, number] {
  if (Array.isArray(value)) {
    const items = integers(value, what);
    if (items.length !== 2) throw new TypeError(`${what} must be an integer or a pair of integers`);
    return [items[0], items[1]];
  }
  return integer(value, what);
}

const sync = (call: BindingFunction): Binding => ({ call, returns: 'value' });

export function tensorBindings(registry: TensorRegistry, fixtures: TensorFixtures): Record<string, Record<string, Binding>> {
  const tensorOf = (value: JsonValue | undefined, what: string) => registry.tensor(value, what);
  const wrap = (tensor: Tensor) => registry.handle(tensor);
  return {
    torch: {
      load: sync((name) => {
        if (typeof name !== 'string') throw new TypeError('torch.load(name): name must be a string');
        const fixture = fixtures.tensors[name];
        if (!fixture) throw new Error(`FileNotFoundError: no saved tensor named '${name}'`);
        return wrap(Tensor.fromArray(fixture.shape, fixture.values));
      }),
      cat: sync((tensors, dim = 0) => {
        if (!Array.isArray(tensors)) throw new TypeError('torch.cat(tensors, dim): tensors must be a list of Tensors');
        return wrap(cat(tensors.map((item, index) => tensorOf(item, `tensors[${index}]`)), integer(dim, 'dim')));
      }),
      transpose: sync((input, dim0, dim1) => wrap(transpose(tensorOf(input, 'input'), integer(dim0, 'dim0'), integer(dim1, 'dim1')))),
      permute: sync((input, dims) => wrap(permute(tensorOf(input, 'input'), integers(dims, 'dims')))),
      split: sync((input, sizeOrSections, dim = 0) => {
        const sizes = Array.isArray(sizeOrSections) ? integers(sizeOrSections, 'split_size_or_sections') : integer(sizeOrSections, 'split_size_or_sections');
        return split(tensorOf(input, 'tensor'), sizes, integer(dim, 'dim')).map(wrap);
      }),
      view: sync((input, shape) => wrap(view(tensorOf(input, 'input'), integers(shape, 'shape')))),
      reshape: sync((input, shape) => wrap(reshape(tensorOf(input, 'input'), integers(shape, 'shape')))),
    },
    F: {
      linear: sync((input, weight, bias) => wrap(linear(tensorOf(input, 'input'), tensorOf(weight, 'weight'), bias === undefined || bias === null ? undefined : tensorOf(bias, 'bias')))),
      conv2d: sync((input, weight, options) => {
        const given = options ?? {};
        if (!isJsonObject(given) || isHandle(given)) {
          throw new TypeError('F.conv2d(input, weight, options): options must be an object { bias, stride, padding, dilation, groups }');
        }
        const conv: Conv2dOptions = {};
        if (given.bias !== undefined && given.bias !== null) conv.bias = tensorOf(given.bias, 'bias');
        if (given.stride !== undefined) conv.stride = intOrPair(given.stride, 'stride');
        if (given.dilation !== undefined) conv.dilation = intOrPair(given.dilation, 'dilation');
        if (given.groups !== undefined) conv.groups = integer(given.groups, 'groups');
        if (given.padding !== undefined) {
          conv.padding = typeof given.padding === 'string' ? given.padding as Padding : intOrPair(given.padding, 'padding');
        }
        return wrap(conv2d(tensorOf(input, 'input'), tensorOf(weight, 'weight'), conv));
      }),
    },
  };
}

export const createTensorBackend: BackendFactory = async (fixtures) => {
  const parsed = tensorFixturesSchema.parse(fixtures);
  const registry = new TensorRegistry();
  return {
    bindings: tensorBindings(registry, parsed),
    http: refuseAllRequests,
    resolveResult: (value) => registry.resolve(value),
    snapshotState: () => ({}),
    dispose: async () => {},
  };
};

export { TensorError };

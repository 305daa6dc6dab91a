/**
 * A small tensor library with PyTorch semantics for the tensor scenario: dense float tensors stored row-major,
 * and the operations the scenario exposes (cat, transpose, permute, split, view, reshape, F.linear, F.conv2d with
 * stride / padding incl. 'same' and 'valid' / dilation / groups). Shape rules and error messages follow PyTorch;
 * `contiguous` tracks whether a result of transpose/permute could still be viewed, as `view` requires.
 */

/** A PyTorch RuntimeError: reaches model code under that name. */
export class TensorError extends Error {
  override name = 'RuntimeError';
}

export class Tensor {
  constructor(
    readonly shape: readonly number[],
    readonly values: Float64Array,
    readonly contiguous = true,
  ) {
    if (values.length !== numel(shape)) throw new TensorError(`shape [${shape.join(', ')}] is invalid for input of size ${values.length}`);
  }

  static fromArray(shape: readonly number[], values: readonly number[]): Tensor {
    return new Tensor([...shape], Float64Array.from(values));
  }

  get rank(): number {
    return this.shape.length;
  }
}

export function numel(shape: readonly number[]): number {
  return shape.reduce((product, size) => product * size, 1);
}

export function stridesOf(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let stride = 1;
  for (let axis = shape.length - 1; axis >= 0; axis -= 1) {
    strides[axis] = stride;
    stride *= shape[axis];
  }
  return strides;
}

/** A dimension index with Python's negative indexing, checked like PyTorch. */
export function normalizeDim(dim: number, rank: number): number {
  if (!Number.isInteger(dim)) throw new TensorError(`dim must be an integer, got ${dim}`);
  const low = -Math.max(rank, 1);
  const high = Math.max(rank, 1) - 1;
  if (dim < low || dim > high) throw new TensorError(`Dimension out of range (expected to be in range of [${low}, ${high}], but got ${dim})`);
  return dim < 0 ? dim + Math.max(rank, 1) : dim;
}

export function catShape(shapes: readonly (readonly number[])[], dim: number): number[] {
  if (shapes.length === 0) throw new TensorError('torch.cat(): expected a non-empty list of Tensors');
  const rank = shapes[0].length;
  const axis = normalizeDim(dim, rank);
  for (const [index, shape] of shapes.entries()) {
    if (shape.length !== rank) throw new TensorError(`Tensors must have same number of dimensions: got ${rank} and ${shape.length}`);
    for (let other = 0; other < rank; other += 1) {
      if (other !== axis && shape[other] !== shapes[0][other]) {
        throw new TensorError(`Sizes of tensors must match except in dimension ${axis}. Expected size ${shapes[0][other]} but got size ${shape[other]} for tensor number ${index} in the list.`);
      }
    }
  }
  const result = [...shapes[0]];
  result[axis] = shapes.reduce((sum, shape) => sum + shape[axis], 0);
  return result;
}

export function cat(tensors: readonly Tensor[], dim = 0): Tensor {
  const shape = catShape(tensors.map((tensor) => tensor.shape), dim);
  const axis = normalizeDim(dim, shape.length);
  const outer = numel(shape.slice(0, axis));
  const values = new Float64Array(numel(shape));
  let offset = 0;
  for (let block = 0; block < outer; block += 1) {
    for (const tensor of tensors) {
      const inner = numel(tensor.shape.slice(axis));
      values.set(tensor.values.subarray(block * inner, (block + 1) * inner), offset);
      offset += inner;
    }
  }
  return new Tensor(shape, values);
}

export function permute(tensor: Tensor, dims: readonly number[]): Tensor {
  if (dims.length !== tensor.rank) {
    throw new TensorError(`permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = ${tensor.rank} is not equal to len(dims) = ${dims.length}`);
  }
  const order = dims.map((dim) => normalizeDim(dim, tensor.rank));
  if (new Set(order).size !== order.length) throw new TensorError('permute(): duplicate dims are not allowed.');
  const shape = order.map((axis) => tensor.shape[axis]);
  const sourceStrides = stridesOf(tensor.shape);
  const permutedStrides = order.map((axis) => sourceStrides[axis]);
  const values = new Float64Array(tensor.values.length);
  const index = new Array<number>(shape.length).fill(0);
  for (let target = 0; target < values.length; target += 1) {
    let source = 0;
    for (let axis = 0; axis < shape.length; axis += 1) source += index[axis] * permutedStrides[axis];
    values[target] = tensor.values[source];
    for (let axis = shape.length - 1; axis >= 0; axis -= 1) {
      index[axis] += 1;
      if (index[axis] < shape[axis]) break;
      index[axis] = 0;
    }
  }
  // Still viewable when the dimensions that have extent > 1 keep their order.
  const moving = order.filter((axis) => tensor.shape[axis] > 1);
  const keepsOrder = moving.every((axis, position) => position === 0 || moving[position - 1] < axis);
  return new Tensor(shape, values, tensor.contiguous && keepsOrder);
}

export function transpose(tensor: Tensor, dim0: number, dim1: number): Tensor {
  const first = normalizeDim(dim0, tensor.rank);
  const second = normalizeDim(dim1, tensor.rank);
  const order = tensor.shape.map((_, axis) => axis);
  [order[first], order[second]] = [order[second], order[first]];
  return permute(tensor, order);
}

/** torch.split: chunks of `size` (the last may be smaller) or the given section sizes, along `dim`. */
export function split(tensor: Tensor, sizeOrSections: number | readonly number[], dim = 0): Tensor[] {
  const axis = normalizeDim(dim, tensor.rank);
  const extent = tensor.shape[axis];
  let sections: number[];
  if (typeof sizeOrSections === 'number') {
    if (!Number.isInteger(sizeOrSections) || sizeOrSections <= 0) throw new TensorError(`split_size can only be a positive integer, got ${sizeOrSections}`);
    sections = [];
    for (let start = 0; start < extent; start += sizeOrSections) sections.push(Math.min(sizeOrSections, extent - start));
    if (extent === 0) sections = [0];
  } else {
    sections = [...sizeOrSections];
    const total = sections.reduce((sum, size) => sum + size, 0);
    if (total !== extent) {
      throw new TensorError(`split_with_sizes expects split_sizes to sum exactly to ${extent} (input tensor's size at dimension ${axis}), but got split_sizes=[${sections.join(', ')}]`);
    }
  }
  const outer = numel(tensor.shape.slice(0, axis));
  const inner = numel(tensor.shape.slice(axis + 1));
  const parts: Tensor[] = [];
  let start = 0;
  for (const size of sections) {
    const shape = [...tensor.shape];
    shape[axis] = size;
    const values = new Float64Array(numel(shape));
    for (let block = 0; block < outer; block += 1) {
      const from = (block * extent + start) * inner;
      values.set(tensor.values.subarray(from, from + size * inner), block * size * inner);
    }
    // A slice along an inner dimension is a strided view in PyTorch: no longer viewable.
    parts.push(new Tensor(shape, values, tensor.contiguous && (outer === 1 || size === extent)));
    start += size;
  }
  return parts;
}

/** Resolves one -1 in a requested shape, as view/reshape do. */
export function inferShape(requested: readonly number[], count: number): number[] {
  const unknown = requested.filter((size) => size === -1).length;
  if (unknown > 1) throw new TensorError('only one dimension can be inferred');
  for (const size of requested) if (!Number.isInteger(size) || size < -1) throw new TensorError(`invalid shape dimension ${size}`);
  const known = requested.filter((size) => size !== -1).reduce((product, size) => product * size, 1);
  const shape = requested.map((size) => (size === -1 ? (known === 0 ? -1 : count / known) : size));
  if (shape.some((size) => !Number.isInteger(size) || size < 0) || numel(shape) !== count) {
    throw new TensorError(`shape '[${requested.join(', ')}]' is invalid for input of size ${count}`);
  }
  return shape;
}

export function reshape(tensor: Tensor, shape: readonly number[]): Tensor {
  return new Tensor(inferShape(shape, tensor.values.length), tensor.values.slice());
}

export function view(tensor: Tensor, shape: readonly number[]): Tensor {
  const target = inferShape(shape, tensor.values.length);
  if (!tensor.contiguous) {
    throw new TensorError("view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  }
  return new Tensor(target, tensor.values.slice());
}

/** F.linear: y = x W^T + b, x [..., in], W [out, in], b [out]. */
export function linear(input: Tensor, weight: Tensor, bias?: Tensor): Tensor {
  if (weight.rank !== 2) throw new TensorError(`linear(): weight should be 2-D, got ${weight.rank}-D`);
  if (input.rank === 0) throw new TensorError('linear(): input must have at least one dimension');
  const [outFeatures, inFeatures] = weight.shape;
  const last = input.shape[input.rank - 1];
  if (last !== inFeatures) {
    const rows = numel(input.shape.slice(0, -1));
    throw new TensorError(`mat1 and mat2 shapes cannot be multiplied (${rows}x${last} and ${inFeatures}x${outFeatures})`);
  }
  if (bias && (bias.rank !== 1 || bias.shape[0] !== outFeatures)) {
    throw new TensorError(`linear(): bias should have shape [${outFeatures}], got [${bias.shape.join(', ')}]`);
  }
  const rows = numel(input.shape.slice(0, -1));
  const values = new Float64Array(rows * outFeatures);
  for (let row = 0; row < rows; row += 1) {
    for (let out = 0; out < outFeatures; out += 1) {
      let sum = bias ? bias.values[out] : 0;
      for (let k = 0; k < inFeatures; k += 1) sum += input.values[row * inFeatures + k] * weight.values[out * inFeatures + k];
      values[row * outFeatures + out] = sum;
    }
  }
  return new Tensor([...input.shape.slice(0, -1), outFeatures], values);
}

export type Padding = number | readonly [number, number] | 'same' | 'valid';
export type Conv2dOptions = { bias?: Tensor; stride?: number | readonly [number, number]; padding?: Padding; dilation?: number | readonly [number, number]; groups?: number };

function pair(value: number | readonly [number, number], name: string): [number, number] {
  const result: [number, number] = typeof value === 'number' ? [value, value] : [value[0], value[1]];
  if (!result.every((item) => Number.isInteger(item))) throw new TensorError(`${name} must be integers, got ${JSON.stringify(value)}`);
  return result;
}

/** Per spatial axis: [padding before, padding after], stride, dilation, kernel extent. */
type AxisPlan = { before: number; after: number; stride: number; dilation: number; kernel: number; input: number; output: number };

function planAxes(inputShape: readonly number[], weightShape: readonly number[], options: Conv2dOptions): AxisPlan[] {
  const stride = pair(options.stride ?? 1, 'stride');
  const dilation = pair(options.dilation ?? 1, 'dilation');
  if (stride.some((item) => item <= 0)) throw new TensorError('non-positive stride is not supported');
  if (dilation.some((item) => item <= 0)) throw new TensorError('dilation should be greater than zero');
  const padding = options.padding ?? 0;
  const spatial = inputShape.slice(-2);
  return [0, 1].map((axis) => {
    const kernel = weightShape[2 + axis];
    const extent = dilation[axis] * (kernel - 1);
    let before: number;
    let after: number;
    if (padding === 'same') {
      if (stride[axis] !== 1) throw new TensorError("padding='same' is not supported for strided convolutions");
      // PyTorch puts the odd padding element on the far side.
      before = Math.floor(extent / 2);
      after = extent - before;
    } else if (padding === 'valid') {
      before = after = 0;
    } else if (typeof padding === 'string') {
      throw new TensorError(`Invalid padding string '${padding}', should be one of {'valid', 'same'}`);
    } else {
      const padded = pair(padding, 'padding');
      if (padded.some((item) => item < 0)) throw new TensorError('negative padding is not supported');
      before = after = padded[axis];
    }
    const size = spatial[axis] + before + after;
    if (size < extent + 1) {
      throw new TensorError(`Calculated padded input size per channel: (${spatial[0]} x ${spatial[1]}). Kernel size: (${weightShape[2]} x ${weightShape[3]}). Kernel size can't be greater than actual input size`);
    }
    return { before, after, stride: stride[axis], dilation: dilation[axis], kernel, input: spatial[axis], output: Math.floor((size - extent - 1) / stride[axis]) + 1 };
  });
}

export function conv2dShape(inputShape: readonly number[], weightShape: readonly number[], options: Conv2dOptions = {}): number[] {
  if (inputShape.length !== 3 && inputShape.length !== 4) {
    throw new TensorError(`Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [${inputShape.join(', ')}]`);
  }
  if (weightShape.length !== 4) throw new TensorError(`weight should have 4 dimensions, got ${weightShape.length}`);
  const groups = options.groups ?? 1;
  const channels = inputShape[inputShape.length - 3];
  if (!Number.isInteger(groups) || groups <= 0 || channels % groups !== 0 || weightShape[0] % groups !== 0 || channels / groups !== weightShape[1]) {
    throw new TensorError(`Given groups=${groups}, weight of size [${weightShape.join(', ')}], expected input[${inputShape.join(', ')}] to have ${weightShape[1] * groups} channels, but got ${channels} channels instead`);
  }
  const [height, width] = planAxes(inputShape, weightShape, options).map((plan) => plan.output);
  return inputShape.length === 4 ? [inputShape[0], weightShape[0], height, width] : [weightShape[0], height, width];
}

export function conv2d(input: Tensor, weight: Tensor, options: Conv2dOptions = {}): Tensor {
  const outputShape = conv2dShape(input.shape, weight.shape, options);
  const { bias } = options;
  const outChannels = weight.shape[0];
  if (bias && (bias.rank !== 1 || bias.shape[0] !== outChannels)) {
    throw new TensorError(`conv2d(): bias should have shape [${outChannels}], got [${bias.shape.join(', ')}]`);
  }
  const batched = input.rank === 4;
  const batch = batched ? input.shape[0] : 1;
  const [channels, height, width] = input.shape.slice(-3);
  const [rows, columns] = planAxes(input.shape, weight.shape, options);
  const groups = options.groups ?? 1;
  const perGroupIn = channels / groups;
  const perGroupOut = outChannels / groups;
  const values = new Float64Array(numel(outputShape));
  let target = 0;
  for (let n = 0; n < batch; n += 1) {
    for (let out = 0; out < outChannels; out += 1) {
      const group = Math.floor(out / perGroupOut);
      for (let y = 0; y < rows.output; y += 1) {
        for (let x = 0; x < columns.output; x += 1) {
          let sum = bias ? bias.values[out] : 0;
          for (let c = 0; c < perGroupIn; c += 1) {
            const channel = group * perGroupIn + c;
            for (let ky = 0; ky < rows.kernel; ky += 1) {
              const sourceY = y * rows.stride + ky * rows.dilation - rows.before;
              if (sourceY < 0 || sourceY >= height) continue;
              for (let kx = 0; kx < columns.kernel; kx += 1) {
                const sourceX = x * columns.stride + kx * columns.dilation - columns.before;
                if (sourceX < 0 || sourceX >= width) continue;
                sum += input.values[((n * channels + channel) * height + sourceY) * width + sourceX]
                  * weight.values[((out * perGroupIn + c) * rows.kernel + ky) * columns.kernel + kx];
              }
            }
          }
          values[target] = sum;
          target += 1;
        }
      }
    }
  }
  return new Tensor(outputShape, values);
}

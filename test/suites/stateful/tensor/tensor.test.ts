/**
 * The tensor library against a second, naive implementation (nested arrays, element-by-element definitions) on
 * random shapes, plus hand-checked values and PyTorch's error cases.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../../../src/core/rng.ts';
import { cat, conv2d, conv2dShape, linear, permute, reshape, split, Tensor, TensorError, transpose, view, type Padding } from '../../../../src/suites/stateful/tensor/tensor.ts';

type Nested = number | Nested[];

function toNested(tensor: Tensor): Nested {
  const build = (axis: number, offset: number): Nested => {
    if (axis === tensor.rank) return tensor.values[offset];
    const stride = tensor.shape.slice(axis + 1).reduce((product, size) => product * size, 1);
    return Array.from({ length: tensor.shape[axis] }, (_, index) => build(axis + 1, offset + index * stride));
  };
  return build(0, 0);
}

function at(nested: Nested, index: readonly number[]): number {
  let current = nested;
  for (const position of index) current = (current as Nested[])[position];
  return current as number;
}

function fill(shape: readonly number[], value: (index: number[]) => number, prefix: number[] = []): Nested {
  if (prefix.length === shape.length) return value(prefix);
  return Array.from({ length: shape[prefix.length] }, (_, index) => fill(shape, value, [...prefix, index]));
}

function flatten(nested: Nested): number[] {
  return Array.isArray(nested) ? nested.flatMap(flatten) : [nested];
}

function randomTensor(rng: Rng, shape: readonly number[]): Tensor {
  return Tensor.fromArray(shape, Array.from({ length: shape.reduce((p, s) => p * s, 1) }, () => rng.int(-50, 50) / 10));
}

function randomShape(rng: Rng, rank: number, max = 4): number[] {
  return Array.from({ length: rank }, () => rng.int(1, max));
}

function assertClose(actual: Tensor, expected: Nested, expectedShape: readonly number[]): void {
  assert.deepEqual([...actual.shape], [...expectedShape]);
  const got = [...actual.values];
  const want = flatten(expected);
  assert.equal(got.length, want.length);
  for (let index = 0; index < got.length; index += 1) assert.ok(Math.abs(got[index] - want[index]) < 1e-9, `element ${index}: ${got[index]} vs ${want[index]}`);
}

const rng = new Rng(11);
const trials = 40;

describe('tensor ops agree with the naive implementation on random shapes', () => {
  test('permute and transpose: out[i] = in[i permuted back]', () => {
    for (let trial = 0; trial < trials; trial += 1) {
      const shape = randomShape(rng, rng.int(1, 4));
      const tensor = randomTensor(rng, shape);
      const order = rng.shuffle(shape.map((_, axis) => axis));
      const nested = toNested(tensor);
      const outShape = order.map((axis) => shape[axis]);
      const expected = fill(outShape, (index) => {
        const source = new Array<number>(shape.length);
        order.forEach((axis, position) => { source[axis] = index[position]; });
        return at(nested, source);
      });
      assertClose(permute(tensor, order), expected, outShape);
      if (shape.length >= 2) {
        const [first, second] = rng.sample(shape.map((_, axis) => axis), 2);
        const swapped = shape.map((_, axis) => axis);
        [swapped[first], swapped[second]] = [swapped[second], swapped[first]];
        assertClose(transpose(tensor, first, second - shape.length), toNested(permute(tensor, swapped)), swapped.map((axis) => shape[axis]));
      }
    }
  });

  test('cat along a random dim: the second tensor continues the first', () => {
    for (let trial = 0; trial < trials; trial += 1) {
      const shape = randomShape(rng, rng.int(1, 4));
      const dim = rng.int(0, shape.length - 1);
      const otherShape = [...shape];
      otherShape[dim] = rng.int(1, 4);
      const [left, right] = [randomTensor(rng, shape), randomTensor(rng, otherShape)];
      const outShape = [...shape];
      outShape[dim] += otherShape[dim];
      const expected = fill(outShape, (index) => {
        if (index[dim] < shape[dim]) return at(toNested(left), index);
        const moved = [...index];
        moved[dim] -= shape[dim];
        return at(toNested(right), moved);
      });
      assertClose(cat([left, right], dim), expected, outShape);
    }
  });

  test('split by size and by sections: each part is a slice', () => {
    for (let trial = 0; trial < trials; trial += 1) {
      const shape = randomShape(rng, rng.int(1, 4), 6);
      const tensor = randomTensor(rng, shape);
      const dim = rng.int(0, shape.length - 1);
      const size = rng.int(1, shape[dim]);
      const parts = split(tensor, size, dim);
      assert.equal(parts.length, Math.ceil(shape[dim] / size));
      let start = 0;
      for (const part of parts) {
        const partShape = [...shape];
        partShape[dim] = Math.min(size, shape[dim] - start);
        const offset = start;
        assertClose(part, fill(partShape, (index) => {
          const source = [...index];
          source[dim] += offset;
          return at(toNested(tensor), source);
        }), partShape);
        start += partShape[dim];
      }
      assert.deepEqual(toNested(cat(split(tensor, [shape[dim]], dim), dim)), toNested(tensor));
    }
  });

  test('reshape/view keep row-major order; -1 is inferred', () => {
    for (let trial = 0; trial < trials; trial += 1) {
      const shape = randomShape(rng, rng.int(1, 4));
      const tensor = randomTensor(rng, shape);
      const count = tensor.values.length;
      assertClose(reshape(tensor, [-1]), flatten(toNested(tensor)), [count]);
      assertClose(view(tensor, [1, -1]), [flatten(toNested(tensor))], [1, count]);
    }
  });

  test('F.linear: y[r][o] = sum_k x[r][k] w[o][k] + b[o]', () => {
    for (let trial = 0; trial < trials; trial += 1) {
      const batch = randomShape(rng, rng.int(0, 2));
      const [inFeatures, outFeatures] = [rng.int(1, 5), rng.int(1, 5)];
      const input = randomTensor(rng, [...batch, inFeatures]);
      const weight = randomTensor(rng, [outFeatures, inFeatures]);
      const bias = rng.bool() ? randomTensor(rng, [outFeatures]) : undefined;
      const outShape = [...batch, outFeatures];
      const expected = fill(outShape, (index) => {
        let sum = bias ? bias.values[index[index.length - 1]] : 0;
        for (let k = 0; k < inFeatures; k += 1) sum += at(toNested(input), [...index.slice(0, -1), k]) * at(toNested(weight), [index[index.length - 1], k]);
        return sum;
      });
      assertClose(linear(input, weight, bias), expected, outShape);
    }
  });

  test('F.conv2d with stride, padding (int, same, valid), dilation, groups: explicit zero padding then sliding windows', () => {
    let checked = 0;
    while (checked < trials) {
      const groups = rng.pick([1, 1, 2]);
      const channels = groups * rng.int(1, 2);
      const outChannels = groups * rng.int(1, 2);
      const input = randomTensor(rng, [rng.int(1, 2), channels, rng.int(3, 7), rng.int(3, 7)]);
      const weight = randomTensor(rng, [outChannels, channels / groups, rng.int(1, 3), rng.int(1, 3)]);
      const dilation = rng.int(1, 2);
      const padding: Padding = rng.pick<Padding>([0, 1, 2, 'same', 'valid']);
      const stride = padding === 'same' ? 1 : rng.int(1, 2);
      const bias = rng.bool() ? randomTensor(rng, [outChannels]) : undefined;
      let outShape: number[];
      try {
        outShape = conv2dShape(input.shape, weight.shape, { stride, padding, dilation, groups });
      } catch {
        continue;
      }
      checked += 1;
      const [, , kH, kW] = weight.shape;
      const [batch, , height, width] = input.shape;
      const padOf = (kernel: number): [number, number] => {
        if (padding === 'valid') return [0, 0];
        if (padding === 'same') return [Math.floor(dilation * (kernel - 1) / 2), dilation * (kernel - 1) - Math.floor(dilation * (kernel - 1) / 2)];
        return [padding as number, padding as number];
      };
      const [top, bottom] = padOf(kH);
      const [left, right] = padOf(kW);
      const padded = fill([batch, channels, height + top + bottom, width + left + right], ([n, c, y, x]) => {
        const [sy, sx] = [y - top, x - left];
        return sy >= 0 && sy < height && sx >= 0 && sx < width ? at(toNested(input), [n, c, sy, sx]) : 0;
      });
      const perGroup = channels / groups;
      const expected = fill(outShape, ([n, o, y, x]) => {
        let sum = bias ? bias.values[o] : 0;
        const group = Math.floor(o / (outChannels / groups));
        for (let c = 0; c < perGroup; c += 1) {
          for (let ky = 0; ky < kH; ky += 1) {
            for (let kx = 0; kx < kW; kx += 1) {
              sum += at(padded, [n, group * perGroup + c, y * stride + ky * dilation, x * stride + kx * dilation]) * at(toNested(weight), [o, c, ky, kx]);
            }
          }
        }
        return sum;
      });
      assertClose(conv2d(input, weight, { bias, stride, padding, dilation, groups }), expected, outShape);
      if (padding === 'same') assert.deepEqual(outShape.slice(2), [height, width]);
    }
  });
});

describe('hand-checked values and PyTorch errors', () => {
  test('a 2x2 convolution and a linear layer by hand', () => {
    const image = Tensor.fromArray([1, 1, 3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const kernel = Tensor.fromArray([1, 1, 2, 2], [1, 0, 0, 1]);
    assert.deepEqual([...conv2d(image, kernel).values], [6, 8, 12, 14]);
    assert.deepEqual([...conv2d(image, kernel, { padding: 'same' }).values], [6, 8, 3, 12, 14, 6, 7, 8, 9]);
    assert.deepEqual([...linear(Tensor.fromArray([1, 2], [1, 2]), Tensor.fromArray([2, 2], [1, 1, 0, 1]), Tensor.fromArray([2], [10, 20])).values], [13, 22]);
  });

  test('errors as PyTorch raises them', () => {
    const matrix = Tensor.fromArray([2, 3], [1, 2, 3, 4, 5, 6]);
    assert.throws(() => linear(matrix, Tensor.fromArray([2, 2], [1, 1, 1, 1])), (error: Error) => error instanceof TensorError && error.name === 'RuntimeError' && /mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x2\)/.test(error.message));
    assert.throws(() => view(transpose(matrix, 0, 1), [6]), /view size is not compatible/);
    assert.deepEqual([...reshape(transpose(matrix, 0, 1), [6]).values], [1, 4, 2, 5, 3, 6]);
    assert.throws(() => cat([matrix, Tensor.fromArray([3, 2], [1, 2, 3, 4, 5, 6])], 0), /Sizes of tensors must match except in dimension 0/);
    assert.throws(() => transpose(matrix, 0, 2), /Dimension out of range/);
    assert.throws(() => conv2d(Tensor.fromArray([1, 1, 3, 3], new Array(9).fill(1)), Tensor.fromArray([1, 1, 2, 2], [1, 1, 1, 1]), { stride: 2, padding: 'same' }), /padding='same' is not supported for strided/);
    assert.throws(() => reshape(matrix, [4, -1]), /shape '\[4, -1\]' is invalid for input of size 6/);
  });
});

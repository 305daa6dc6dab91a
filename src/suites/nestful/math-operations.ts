/**
 * The MathQA operations NESTFUL's math samples call (the paper's 40 tools: "divide, remainder,
 * volume_cylinder, permutation, ..."), written from their names and descriptions. Arguments are
 * positional, as the official executor passes them (`func(*values_in_argument_order)`). Domain errors
 * throw, as the Python functions raise (division by zero, square root of a negative, ...): a call that
 * throws is an execution failure, never a result.
 */

export class OperationError extends Error {}

type ParameterType = 'int or float' | 'float' | 'int' | 'list of float';

export type MathOperation = {
  name: string;
  description: string;
  parameters: { description: string; type: ParameterType }[];
  /** Extra trailing parameters that may be left out (log's base). */
  optionalParameters?: number;
  output: { description: string; type: string };
  run(callArguments: readonly unknown[]): number;
  /** How a generated query says it ("the sum of {0} and {1}"); absent = not used by the generator. */
  phrase?: string;
  /** Which arguments the generator may feed from earlier results (others are constants). */
  referenceable?: readonly number[];
};

function number(value: unknown, operation: string, position: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new OperationError(`${operation}: argument ${position} must be a number, got ${JSON.stringify(value)}`);
  }
  return value;
}

function integer(value: unknown, operation: string, position: number): number {
  const result = number(value, operation, position);
  if (!Number.isInteger(result)) throw new OperationError(`${operation}: argument ${position} must be an integer, got ${result}`);
  return result;
}

function numberList(value: unknown, operation: string): number[] {
  if (!Array.isArray(value) || value.length === 0) throw new OperationError(`${operation}: argument 0 must be a non-empty list of numbers`);
  return value.map((item, index) => number(item, operation, index));
}

function finite(result: number, operation: string): number {
  if (!Number.isFinite(result)) throw new OperationError(`${operation}: the result overflows`);
  return result;
}

function quotient(dividend: number, divisor: number, operation: string): number {
  if (divisor === 0) throw new OperationError(`${operation}: division by zero`);
  return dividend / divisor;
}

function factorialOf(value: number, operation: string): number {
  if (value < 0) throw new OperationError(`${operation}: factorial of a negative number`);
  if (value > 170) throw new OperationError(`${operation}: factorial too large`);
  let result = 1;
  for (let factor = 2; factor <= value; factor += 1) result *= factor;
  return result;
}

function greatestCommonDivisor(left: number, right: number): number {
  let a = Math.abs(left);
  let b = Math.abs(right);
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

const number2 = (first: string, second: string): MathOperation['parameters'] => [
  { description: first, type: 'int or float' },
  { description: second, type: 'int or float' },
];
const float1 = (description: string): MathOperation['parameters'] => [{ description, type: 'float' }];

/** Binary operation over two numbers. */
function binary(name: string, description: string, parameters: MathOperation['parameters'], output: string,
  compute: (a: number, b: number) => number, extra: Partial<MathOperation> = {}): MathOperation {
  return {
    name, description, parameters, output: { description: output, type: 'int or float' }, ...extra,
    run(callArguments) {
      const a = number(callArguments[0], name, 0);
      const b = number(callArguments[1], name, 1);
      return finite(compute(a, b), name);
    },
  };
}

function unary(name: string, description: string, parameter: string, output: string,
  compute: (a: number) => number, extra: Partial<MathOperation> = {}): MathOperation {
  return {
    name, description, parameters: float1(parameter), output: { description: output, type: 'float' }, ...extra,
    run(callArguments) {
      return finite(compute(number(callArguments[0], name, 0)), name);
    },
  };
}

const { PI } = Math;

export const mathOperations: readonly MathOperation[] = [
  binary('add', 'adds two numbers', number2('The first number', 'The second number'), 'The addition result',
    (a, b) => a + b, { phrase: 'the sum of {0} and {1}', referenceable: [0, 1] }),
  binary('subtract', 'subtract two numbers', number2('The first number', 'The second number'), 'The subtraction result',
    (a, b) => a - b, { phrase: '{0} minus {1}', referenceable: [0, 1] }),
  binary('multiply', 'Multiplies two numbers', number2('The first number', 'The second number'), 'The multiplication result',
    (a, b) => a * b, { phrase: 'the product of {0} and {1}', referenceable: [0, 1] }),
  binary('divide', 'divides two numbers', number2('The first number', 'The second number'), 'The division result',
    (a, b) => quotient(a, b, 'divide'), { phrase: '{0} divided by {1}', referenceable: [0, 1] }),
  binary('power', 'Raise a number to a power', number2('The base number', 'The exponent number'), 'the power result',
    (a, b) => a ** b, { phrase: '{0} raised to the power of {1}', referenceable: [0] }),
  binary('remainder', 'Calculate the remainder of a divided by b', number2('first number', 'second number'), 'the remainder',
    (a, b) => pythonModulo(a, b, 'remainder')),
  binary('reminder', 'Calculate the remainder of a divided by b', number2('first number', 'second number'), 'the remainder',
    (a, b) => pythonModulo(a, b, 'reminder')),
  binary('speed', 'Calculate speed given distance and time.', number2('distance', 'time'), 'the speed',
    (a, b) => quotient(a, b, 'speed'), { phrase: 'the speed of something covering {0} units of distance in {1} units of time', referenceable: [0, 1] }),
  binary('max', 'Return the larger of two numbers', number2('first number', 'second number'), 'the larger number',
    (a, b) => Math.max(a, b), { phrase: 'the larger of {0} and {1}', referenceable: [0, 1] }),
  binary('min', 'Return the smaller of two numbers', number2('first number', 'second number'), 'the smaller number',
    (a, b) => Math.min(a, b), { phrase: 'the smaller of {0} and {1}', referenceable: [0, 1] }),
  {
    name: 'gcd', description: 'Calculate the Greatest Common Divisor (GCD) of two numbers.',
    parameters: number2('first number', 'second number'), output: { description: 'Greatest Common Divisor', type: 'int' },
    run: (callArguments) => greatestCommonDivisor(Math.trunc(number(callArguments[0], 'gcd', 0)), Math.trunc(number(callArguments[1], 'gcd', 1))),
  },
  {
    name: 'lcm', description: 'Calculate the least common multiple of two numbers',
    parameters: number2('first number', 'second number'), output: { description: 'the least common multiple', type: 'int or float' },
    run(callArguments) {
      const a = integer(callArguments[0], 'lcm', 0);
      const b = integer(callArguments[1], 'lcm', 1);
      if (a === 0 || b === 0) return 0;
      return Math.abs(a * b) / greatestCommonDivisor(a, b);
    },
  },
  {
    name: 'permutation', description: 'Calculate the number of permutations of n items taken r at a time',
    parameters: [{ description: 'Total number of items', type: 'int' }, { description: 'Number of items being arranged', type: 'int' }],
    output: { description: 'Number of permutations', type: 'int' },
    run(callArguments) {
      const n = integer(callArguments[0], 'permutation', 0);
      const r = integer(callArguments[1], 'permutation', 1);
      if (r < 0 || r > n) throw new OperationError('permutation: r must be between 0 and n');
      let result = 1;
      for (let factor = n - r + 1; factor <= n; factor += 1) result *= factor;
      return finite(result, 'permutation');
    },
  },
  {
    name: 'choose', description: 'Calculate the number of ways to choose r items from n items without repetition and without order.',
    parameters: [{ description: 'Total number of items', type: 'int' }, { description: 'Number of items being chosen', type: 'int' }],
    output: { description: 'Number of combinations', type: 'int' },
    run(callArguments) {
      const n = integer(callArguments[0], 'choose', 0);
      const r = integer(callArguments[1], 'choose', 1);
      if (n < 0 || r < 0) throw new OperationError('choose: arguments must be non-negative');
      if (r > n) return 0;
      let result = 1;
      for (let index = 1; index <= Math.min(r, n - r); index += 1) result = (result * (n - index + 1)) / index;
      return finite(Math.round(result), 'choose');
    },
  },
  {
    name: 'factorial', description: 'Calculate the factorial of a non-negative integer',
    parameters: [{ description: 'The input number', type: 'int' }], output: { description: 'the factorial result', type: 'int' },
    run: (callArguments) => factorialOf(integer(callArguments[0], 'factorial', 0), 'factorial'),
  },
  {
    name: 'log', description: 'Calculate the logarithm of x with the given base (default is natural log)',
    parameters: number2('The input number', 'The base'), optionalParameters: 1,
    output: { description: 'logarithm of provided number with the given base', type: 'float' },
    run(callArguments) {
      const x = number(callArguments[0], 'log', 0);
      const base = callArguments.length > 1 ? number(callArguments[1], 'log', 1) : Math.E;
      if (x <= 0 || base <= 0 || base === 1) throw new OperationError('log: math domain error');
      return Math.log(x) / Math.log(base);
    },
  },
  unary('sqrt', 'Calculate the square root of a non-negative number.', 'The input number', 'the square root of the provided number',
    (a) => { if (a < 0) throw new OperationError('sqrt: math domain error'); return Math.sqrt(a); },
    { phrase: 'the square root of {0}', referenceable: [0] }),
  unary('inverse', 'Return the inverse (reciprocal) of a number', 'The number to inverse', 'The inverse result',
    (a) => quotient(1, a, 'inverse'), { phrase: 'the reciprocal of {0}', referenceable: [0] }),
  unary('negate', 'Return the negation of a number', 'The number to negate', 'The negation result',
    (a) => -a, { phrase: 'the negative of {0}', referenceable: [0] }),
  unary('negate_prob', 'Calculate the probability of an event not occurring', 'Probability of the event occurring',
    'Probability of the event not occurring', (a) => 1 - a, { phrase: 'one minus {0}', referenceable: [0] }),
  unary('floor', 'Return the largest integer less than or equal to x.', 'The input number', 'the flooring result', Math.floor),
  {
    name: 'min_number', description: 'Find the minimum value among the given numbers',
    parameters: [{ description: 'A list of numbers', type: 'list of float' }], output: { description: 'Minimum value', type: 'float' },
    run: (callArguments) => Math.min(...numberList(callArguments[0], 'min_number')),
  },
  {
    name: 'max_number', description: 'Find the maximum value among the given numbers',
    parameters: [{ description: 'A list of numbers', type: 'list of float' }], output: { description: 'Maximum value', type: 'float' },
    run: (callArguments) => Math.max(...numberList(callArguments[0], 'max_number')),
  },
  unary('square_area', 'Calculate the area of a square given its side', 'The square side', 'the square area',
    (a) => a * a, { phrase: 'the area of a square with side {0}', referenceable: [0] }),
  unary('square_perimeter', 'Calculate the perimeter of a square given its side length', 'side length', 'the square perimeter',
    (a) => 4 * a, { phrase: 'the perimeter of a square with side {0}', referenceable: [0] }),
  unary('square_edge_by_perimeter', 'Calculate the edge length of a square given its perimeter', 'Perimeter of the square',
    'Edge length of the square', (a) => a / 4, { phrase: 'the side of a square whose perimeter is {0}', referenceable: [0] }),
  unary('square_edge_by_area', 'Calculate the edge length of a square given its area', 'Area of the square', 'Edge length of the square',
    (a) => { if (a < 0) throw new OperationError('square_edge_by_area: math domain error'); return Math.sqrt(a); },
    { phrase: 'the side of a square whose area is {0}', referenceable: [0] }),
  unary('circle_area', 'Calculate the area of a circle given its radius', 'The circle radius', 'the circle area',
    (a) => PI * a ** 2, { phrase: 'the area of a circle with radius {0}', referenceable: [0] }),
  unary('circumface', 'Calculate the circumference of a circle', 'Radius of the circle', 'Circumference of the circle',
    (a) => 2 * PI * a, { phrase: 'the circumference of a circle with radius {0}', referenceable: [0] }),
  unary('surface_sphere', 'Calculate the surface area of a sphere', 'Radius of the sphere', 'Surface area of the sphere',
    (a) => 4 * PI * a ** 2, { phrase: 'the surface area of a sphere with radius {0}', referenceable: [0] }),
  unary('volume_sphere', 'Calculate the volume of a sphere', 'Radius of the sphere', 'Volume of the sphere',
    (a) => (4 / 3) * PI * a ** 3, { phrase: 'the volume of a sphere with radius {0}', referenceable: [0] }),
  unary('volume_cube', 'Calculate the volume of a cube.', 'Length of a side of the cube.', 'Volume of the cube.',
    (a) => a ** 3, { phrase: 'the volume of a cube with side {0}', referenceable: [0] }),
  unary('surface_cube', 'Calculate the surface area of a cube.', 'Length of a side of the cube', 'Surface area of the cube',
    (a) => 6 * a ** 2, { phrase: 'the surface area of a cube with side {0}', referenceable: [0] }),
  unary('cube_edge_by_volume', 'Calculate the edge length of a cube given its volume.', 'Volume of the cube', 'Edge length of the cube',
    (a) => { if (a < 0) throw new OperationError('cube_edge_by_volume: math domain error'); return a ** (1 / 3); }),
  binary('rectangle_area', 'Calculate the area of a rectangle given its length and width', number2('rectangle length', 'rectangle width'),
    'the rectangle area', (a, b) => a * b, { phrase: 'the area of a rectangle of length {0} and width {1}', referenceable: [0, 1] }),
  binary('rectangle_perimeter', 'Calculate the perimeter of a rectangle', number2('rectangle length', 'rectangle width'),
    'the rectangle perimeter', (a, b) => 2 * (a + b), { phrase: 'the perimeter of a rectangle of length {0} and width {1}', referenceable: [0, 1] }),
  binary('diagonal', 'Calculate the length of the diagonal of a rectangle', number2('Length of the rectangle', 'Width of the rectangle'),
    'Length of the diagonal', (a, b) => Math.sqrt(a ** 2 + b ** 2), { phrase: 'the diagonal of a rectangle of length {0} and width {1}', referenceable: [0, 1] }),
  binary('triangle_area', 'Calculate the area of a triangle given base and height', number2('Length of the base of the triangle', 'Height of the triangle'),
    'Area of the triangle', (a, b) => 0.5 * a * b, { phrase: 'the area of a triangle with base {0} and height {1}', referenceable: [0, 1] }),
  binary('rhombus_area', 'Calculate the area of a rhombus', number2('Length of the first diagonal', 'Length of the second diagonal'),
    'Area of the rhombus', (a, b) => 0.5 * a * b, { phrase: 'the area of a rhombus with diagonals {0} and {1}', referenceable: [0, 1] }),
  binary('volume_cylinder', 'Calculate the volume of a cylinder', number2('Radius of the base of the cylinder', 'Height of the cylinder'),
    'Volume of the cylinder', (a, b) => PI * a ** 2 * b, { phrase: 'the volume of a cylinder with radius {0} and height {1}', referenceable: [0, 1] }),
  binary('surface_cylinder', 'Calculate the surface area of a cylinder', number2('Radius of the base of the cylinder', 'Height of the cylinder'),
    'Surface area of the cylinder', (a, b) => 2 * PI * a * (a + b), { phrase: 'the surface area of a cylinder with radius {0} and height {1}', referenceable: [0, 1] }),
  binary('volume_cone', 'Calculate the volume of a cone', number2('Radius of the base of the cone', 'Height of the cone'),
    'Volume of the cone', (a, b) => (1 / 3) * PI * a ** 2 * b, { phrase: 'the volume of a cone with radius {0} and height {1}', referenceable: [0, 1] }),
];

function pythonModulo(a: number, b: number, operation: string): number {
  if (b === 0) throw new OperationError(`${operation}: modulo by zero`);
  const remainder = a % b;
  // Python's % takes the divisor's sign.
  return remainder !== 0 && (remainder < 0) !== (b < 0) ? remainder + b : remainder;
}

export const mathOperationsByName: ReadonlyMap<string, MathOperation> = new Map(mathOperations.map((operation) => [operation.name, operation]));

/** Runs an operation on positional arguments, checking the argument count as Python's call would. */
export function runMathOperation(operation: MathOperation, callArguments: readonly unknown[]): number {
  const maximum = operation.parameters.length;
  const minimum = maximum - (operation.optionalParameters ?? 0);
  if (callArguments.length < minimum || callArguments.length > maximum) {
    throw new OperationError(`${operation.name} takes ${minimum === maximum ? maximum : `${minimum} to ${maximum}`} arguments, got ${callArguments.length}`);
  }
  return operation.run(callArguments);
}

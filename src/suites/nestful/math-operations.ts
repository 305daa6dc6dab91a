/**
 * The MathQA operations of NESTFUL's math samples, with the semantics of the published
 * `data_v2/executable_functions/basic_functions.py` (upstream fc2c412), which the official win rate
 * executes: Python's int/float distinction included, because it decides outcomes there: `sqrt` is
 * `math.isqrt` (an int result; a float argument, even 4.0, raises), `log` truncates to an int,
 * `choose`/`factorial`/`permutation` reject floats, `lcm` floor-divides by `gcd(int(a), int(b))`,
 * `a / b` is always a float and `a + b` of two ints an int. There is no `max`/`min` among them.
 * Arguments are positional (`func(*values_in_argument_order)`). A call that raises in Python throws
 * OperationError here: an execution failure, never a result.
 */
import type { JsonValue } from '../../core/json.ts';
import { isFloatLiteral } from './lenient-json.ts';

export class OperationError extends Error {}

type ParameterType = 'int or float' | 'float' | 'int' | 'list of float';

/** A Python number: `kind` is its Python type (`4` is an int, `4.0` a float). */
export type PythonNumber = { kind: 'int' | 'float'; value: number };

/** One argument as the executor passes it: the value and whether it is a Python float. */
export type OperationArgument = { value: JsonValue; isFloat: boolean };

export type MathOperation = {
  name: string;
  description: string;
  parameters: { description: string; type: ParameterType }[];
  /** Extra trailing parameters that may be left out (log's base). */
  optionalParameters?: number;
  output: { description: string; type: string };
  run(callArguments: readonly OperationArgument[]): PythonNumber;
  /** How a generated query says it ("the sum of {0} and {1}"); absent = not used by the generator. */
  phrase?: string;
  /** Which arguments the generator may feed from earlier results (others are constants). */
  referenceable?: readonly number[];
};

const int = (value: number): PythonNumber => ({ kind: 'int', value });
const float = (value: number): PythonNumber => ({ kind: 'float', value });

/**
 * A Python number from an argument (a JSON `true`/`false` is Python's `True`/`False`, an int). Strings,
 * lists and None raise TypeError in every published function's arithmetic.
 */
function number(argument: OperationArgument | undefined, operation: string, position: number): PythonNumber {
  const value = argument?.value;
  if (typeof value === 'boolean') return int(value ? 1 : 0);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new OperationError(`${operation}: argument ${position} must be a number, got ${JSON.stringify(value ?? null)}`);
  }
  return argument!.isFloat || !Number.isInteger(value) ? float(value) : int(value);
}

/** For functions Python only accepts ints in (math.isqrt, math.comb, range()). */
function integer(argument: OperationArgument | undefined, operation: string, position: number): number {
  const value = number(argument, operation, position);
  if (value.kind === 'float') throw new OperationError(`${operation}: argument ${position} must be an int, got the float ${pythonFloatText(value.value)}`);
  return value.value;
}

/** Python's `int(x)`: truncates a float; reads an integer string. */
function pythonInt(argument: OperationArgument | undefined, operation: string, position: number): number {
  const value = argument?.value;
  if (typeof value === 'string' && /^\s*[-+]?\d+(?:_\d+)*\s*$/.test(value)) return Number(value.replaceAll('_', '').trim());
  return Math.trunc(number(argument, operation, position).value);
}

function pythonFloatText(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

/** int op int stays an int; anything with a float is a float. Python raises OverflowError where a float overflows. */
function arithmetic(operation: string, left: PythonNumber, right: PythonNumber, value: number): PythonNumber {
  return finite(left.kind === 'int' && right.kind === 'int' ? int(value) : float(value), operation);
}

function finite(result: PythonNumber, operation: string): PythonNumber {
  if (!Number.isFinite(result.value)) throw new OperationError(`${operation}: the result overflows`);
  return result;
}

function trueDivide(dividend: PythonNumber, divisor: PythonNumber, operation: string): PythonNumber {
  if (divisor.value === 0) throw new OperationError(`${operation}: division by zero`);
  return finite(float(dividend.value / divisor.value), operation);
}

function greatestCommonDivisor(left: number, right: number): number {
  let a = Math.abs(left);
  let b = Math.abs(right);
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Python `a // b`: floor division (an int for two ints, else a float, rounded as CPython's float_floor_div). */
function floorDivide(dividend: PythonNumber, divisor: PythonNumber, operation: string): PythonNumber {
  if (divisor.value === 0) throw new OperationError(`${operation}: integer division or modulo by zero`);
  if (dividend.kind === 'int' && divisor.kind === 'int' && Number.isSafeInteger(dividend.value) && Number.isSafeInteger(divisor.value)) {
    const a = BigInt(dividend.value);
    const b = BigInt(divisor.value);
    const truncated = a / b;
    return int(Number(a % b !== 0n && (a < 0n) !== (b < 0n) ? truncated - 1n : truncated));
  }
  const x = dividend.value;
  const y = divisor.value;
  let modulo = x % y;
  let division = (x - modulo) / y;
  if (modulo !== 0 && (y < 0) !== (modulo < 0)) { modulo += y; division -= 1; }
  let floored: number;
  if (division !== 0) {
    floored = Math.floor(division);
    if (division - floored > 0.5) floored += 1;
  } else {
    floored = Math.sign(x / y) < 0 || Object.is(x / y, -0) ? -0 : 0;
  }
  return finite(dividend.kind === 'int' && divisor.kind === 'int' ? int(floored) : float(floored), operation);
}

/** Python `a % b`: the result takes the divisor's sign. */
function pythonModulo(left: PythonNumber, right: PythonNumber, operation: string): PythonNumber {
  if (right.value === 0) throw new OperationError(`${operation}: integer division or modulo by zero`);
  const remainder = left.value % right.value;
  const value = remainder !== 0 && (remainder < 0) !== (right.value < 0) ? remainder + right.value : remainder;
  return arithmetic(operation, left, right, value);
}

/** Python `a ** b`, or OperationError where Python raises or leaves the reals (a complex result). */
function pythonPower(base: PythonNumber, exponent: PythonNumber, operation: string): PythonNumber {
  if (base.value === 0 && exponent.value < 0) throw new OperationError(`${operation}: 0.0 cannot be raised to a negative power`);
  if (base.kind === 'int' && exponent.kind === 'int') return finite(exponent.value >= 0 ? int(base.value ** exponent.value) : float(base.value ** exponent.value), operation);
  if (base.value < 0 && !Number.isInteger(exponent.value)) throw new OperationError(`${operation}: a negative number to a fractional power is complex`);
  return finite(float(base.value ** exponent.value), operation);
}

/** Where the published `factorial` raises: a negative number, and a float other than 0.0 (range(1, n + 1)). */
function checkFactorialArgument(value: PythonNumber, operation: string): void {
  if (value.value < 0) throw new OperationError(`${operation}: Input number must be a non-negative integer`);
  if (value.kind === 'float' && value.value !== 0) throw new OperationError(`${operation}: argument must be an int, got the float ${pythonFloatText(value.value)}`);
}

/** The published `factorial`; past 170! a double overflows (Python's int would not: a deliberate limit). */
function factorialOf(value: PythonNumber, operation: string): number {
  checkFactorialArgument(value, operation);
  let result = 1;
  // Stopped at the overflow (by 171!): a model's 10^16 would otherwise loop for ever (past 2^53, factor + 1 === factor).
  for (let factor = 2; factor <= value.value && Number.isFinite(result); factor += 1) result *= factor;
  return finite(int(result), operation).value;
}

/** Python's `math.isqrt`: the exact floor of the square root of a non-negative int. */
function integerSquareRoot(value: number): number {
  let root = Math.floor(Math.sqrt(value));
  // Past 2^53 a double holds no exact int to correct towards (and root - 1 === root past it: the loops would not end).
  if (value > Number.MAX_SAFE_INTEGER) return root;
  while (root * root > value) root -= 1;
  while ((root + 1) * (root + 1) <= value) root += 1;
  return root;
}

/** Python's `max`/`min` of a list: the first extreme element, with its own type. */
function extreme(argument: OperationArgument | undefined, operation: string, better: (candidate: number, best: number) => boolean): PythonNumber {
  const list = argument?.value;
  if (!Array.isArray(list)) throw new OperationError(`${operation}: argument 0 must be a list of numbers`);
  if (list.length === 0) throw new OperationError(`${operation}: arg is an empty sequence`);
  let best: PythonNumber | undefined;
  list.forEach((item, index) => {
    const candidate = number({ value: item, isFloat: isFloatLiteral(list, index) }, operation, index);
    if (best === undefined || better(candidate.value, best.value)) best = candidate;
  });
  return best!;
}

const number2 = (first: string, second: string): MathOperation['parameters'] => [
  { description: first, type: 'int or float' },
  { description: second, type: 'int or float' },
];
const float1 = (description: string): MathOperation['parameters'] => [{ description, type: 'float' }];

/** An operation of two numbers. */
function binary(name: string, description: string, parameters: MathOperation['parameters'], output: string,
  compute: (a: PythonNumber, b: PythonNumber) => PythonNumber, extra: Partial<MathOperation> = {}): MathOperation {
  return {
    name, description, parameters, output: { description: output, type: 'int or float' }, ...extra,
    run: (callArguments) => compute(number(callArguments[0], name, 0), number(callArguments[1], name, 1)),
  };
}

function unary(name: string, description: string, parameter: string, output: string,
  compute: (a: PythonNumber) => PythonNumber, extra: Partial<MathOperation> = {}): MathOperation {
  return {
    name, description, parameters: float1(parameter), output: { description: output, type: 'float' }, ...extra,
    run: (callArguments) => compute(number(callArguments[0], name, 0)),
  };
}

/** A float-valued formula (the published ones multiply by math.pi or 0.5, or divide). */
const real = (name: string, compute: (a: number, b: number) => number) => (a: PythonNumber, b?: PythonNumber): PythonNumber => finite(float(compute(a.value, b?.value ?? 0)), name);

const { PI } = Math;

export const mathOperations: readonly MathOperation[] = [
  binary('add', 'adds two numbers', number2('The first number', 'The second number'), 'The addition result',
    (a, b) => arithmetic('add', a, b, a.value + b.value), { phrase: 'the sum of {0} and {1}', referenceable: [0, 1] }),
  binary('subtract', 'subtract two numbers', number2('The first number', 'The second number'), 'The subtraction result',
    (a, b) => arithmetic('subtract', a, b, a.value - b.value), { phrase: '{0} minus {1}', referenceable: [0, 1] }),
  binary('multiply', 'Multiplies two numbers', number2('The first number', 'The second number'), 'The multiplication result',
    (a, b) => arithmetic('multiply', a, b, a.value * b.value), { phrase: 'the product of {0} and {1}', referenceable: [0, 1] }),
  binary('divide', 'divides two numbers', number2('The first number', 'The second number'), 'The division result',
    (a, b) => trueDivide(a, b, 'divide'), { phrase: '{0} divided by {1}', referenceable: [0, 1] }),
  binary('power', 'Raise a number to a power', number2('The base number', 'The exponent number'), 'the power result',
    (a, b) => pythonPower(a, b, 'power'), { phrase: '{0} raised to the power of {1}', referenceable: [0] }),
  binary('remainder', 'Calculate the remainder of a divided by b', number2('first number', 'second number'), 'the remainder',
    (a, b) => pythonModulo(a, b, 'remainder')),
  binary('reminder', 'Calculate the remainder of a divided by b', number2('first number', 'second number'), 'the remainder',
    (a, b) => pythonModulo(a, b, 'reminder')),
  binary('speed', 'Calculate speed given distance and time.', number2('distance', 'time'), 'the speed',
    (a, b) => trueDivide(a, b, 'speed'), { phrase: 'the speed of something covering {0} units of distance in {1} units of time', referenceable: [0, 1] }),
  {
    name: 'gcd', description: 'Calculate the Greatest Common Divisor (GCD) of two numbers.',
    parameters: number2('first number', 'second number'), output: { description: 'Greatest Common Divisor', type: 'int or float' },
    run: (callArguments) => int(greatestCommonDivisor(pythonInt(callArguments[0], 'gcd', 0), pythonInt(callArguments[1], 'gcd', 1))),
  },
  {
    name: 'lcm', description: 'Calculate the least common multiple of two numbers',
    parameters: number2('first number', 'second number'), output: { description: 'the least common multiple', type: 'int or float' },
    run(callArguments) {
      // abs(a*b) // gcd(a, b), where the module's own gcd (defined later in the file) applies int() first.
      const a = number(callArguments[0], 'lcm', 0);
      const b = number(callArguments[1], 'lcm', 1);
      const product = arithmetic('lcm', a, b, Math.abs(a.value * b.value));
      return floorDivide(product, int(greatestCommonDivisor(Math.trunc(a.value), Math.trunc(b.value))), 'lcm');
    },
  },
  {
    name: 'permutation', description: 'Calculate the number of permutations of n items taken r at a time',
    parameters: [{ description: 'Total number of items', type: 'int' }, { description: 'Number of items being arranged', type: 'int' }],
    output: { description: 'Number of permutations', type: 'int' },
    run(callArguments) {
      // factorial(n) // factorial(n - r) with the published factorial; the quotient as a product stays exact.
      const n = number(callArguments[0], 'permutation', 0);
      const r = number(callArguments[1], 'permutation', 1);
      checkFactorialArgument(n, 'permutation');
      const rest = arithmetic('permutation', n, r, n.value - r.value);
      checkFactorialArgument(rest, 'permutation');
      let result = 1;
      // r factors, counted (past 2^53 neither n - (n - r) nor factor + 1 keeps the count); ~1,000 of them overflow first.
      const factors = r.value;
      for (let index = 1; index <= factors && Number.isFinite(result); index += 1) result *= rest.value + index;
      return finite(int(result), 'permutation');
    },
  },
  {
    name: 'choose', description: 'Calculate the number of ways to choose r items from n items without repetition and without order.',
    parameters: [{ description: 'Total number of items', type: 'int' }, { description: 'Number of items being chosen', type: 'int' }],
    output: { description: 'Number of combinations', type: 'int' },
    run(callArguments) {
      const n = integer(callArguments[0], 'choose', 0);
      const r = integer(callArguments[1], 'choose', 1);
      if (n < 0 || r < 0) throw new OperationError('choose: n and k must be non-negative integers');
      if (r > n) return int(0);
      let result = 1;
      // C(n, k) with n >= 2k overflows before k reaches ~1,100: the loop ends there, not after k steps.
      for (let index = 1; index <= Math.min(r, n - r) && Number.isFinite(result); index += 1) result = (result * (n - index + 1)) / index;
      return finite(int(Math.round(result)), 'choose');
    },
  },
  {
    name: 'factorial', description: 'Calculate the factorial of a non-negative integer',
    parameters: [{ description: 'The input number', type: 'int' }], output: { description: 'the factorial result', type: 'int' },
    run: (callArguments) => int(factorialOf(number(callArguments[0], 'factorial', 0), 'factorial')),
  },
  {
    name: 'log', description: 'Calculate the logarithm of x with the given base (default is natural log)',
    parameters: number2('The input number', 'The base'), optionalParameters: 1,
    output: { description: 'logarithm of provided number with the given base', type: 'int' },
    run(callArguments) {
      // int(math.log(x, base)): log(x) / log(base), truncated toward zero.
      const x = number(callArguments[0], 'log', 0).value;
      const base = callArguments.length > 1 ? number(callArguments[1], 'log', 1).value : Math.E;
      if (x <= 0 || base <= 0) throw new OperationError('log: math domain error');
      if (base === 1) throw new OperationError('log: float division by zero');
      return int(Math.trunc(Math.log(x) / Math.log(base)));
    },
  },
  {
    name: 'sqrt', description: 'Calculate the square root of a non-negative number.',
    parameters: [{ description: 'The input number', type: 'int' }], output: { description: 'the square root of the provided number', type: 'int' },
    run(callArguments) {
      const value = integer(callArguments[0], 'sqrt', 0);
      if (value < 0) throw new OperationError('sqrt: isqrt() argument must be nonnegative');
      return int(integerSquareRoot(value));
    },
    phrase: 'the integer part of the square root of {0}', referenceable: [0],
  },
  unary('inverse', 'Return the inverse (reciprocal) of a number', 'The number to inverse', 'The inverse result',
    (a) => trueDivide(int(1), a, 'inverse'), { phrase: 'the reciprocal of {0}', referenceable: [0] }),
  unary('negate', 'Return the negation of a number', 'The number to negate', 'The negation result',
    (a) => ({ kind: a.kind, value: -a.value }), { phrase: 'the negative of {0}', referenceable: [0] }),
  unary('negate_prob', 'Calculate the probability of an event not occurring', 'Probability of the event occurring',
    'Probability of the event not occurring', (a) => arithmetic('negate_prob', int(1), a, 1 - a.value), { phrase: 'one minus {0}', referenceable: [0] }),
  unary('floor', 'Return the largest integer less than or equal to x.', 'The input number', 'the flooring result', (a) => int(Math.floor(a.value))),
  {
    name: 'min_number', description: 'Find the minimum value among the given numbers',
    parameters: [{ description: 'A list of numbers', type: 'list of float' }], output: { description: 'Minimum value', type: 'float' },
    run: (callArguments) => extreme(callArguments[0], 'min_number', (candidate, best) => candidate < best),
  },
  {
    name: 'max_number', description: 'Find the maximum value among the given numbers',
    parameters: [{ description: 'A list of numbers', type: 'list of float' }], output: { description: 'Maximum value', type: 'float' },
    run: (callArguments) => extreme(callArguments[0], 'max_number', (candidate, best) => candidate > best),
  },
  unary('square_area', 'Calculate the area of a square given its side', 'The square side', 'the square area',
    (a) => arithmetic('square_area', a, a, a.value * a.value), { phrase: 'the area of a square with side {0}', referenceable: [0] }),
  unary('square_perimeter', 'Calculate the perimeter of a square given its side length', 'side length', 'the square perimeter',
    (a) => arithmetic('square_perimeter', int(4), a, 4 * a.value), { phrase: 'the perimeter of a square with side {0}', referenceable: [0] }),
  unary('square_edge_by_perimeter', 'Calculate the edge length of a square given its perimeter', 'Perimeter of the square',
    'Edge length of the square', (a) => trueDivide(a, int(4), 'square_edge_by_perimeter'), { phrase: 'the side of a square whose perimeter is {0}', referenceable: [0] }),
  unary('square_edge_by_area', 'Calculate the edge length of a square given its area', 'Area of the square', 'Edge length of the square',
    (a) => { if (a.value < 0) throw new OperationError('square_edge_by_area: math domain error'); return float(Math.sqrt(a.value)); },
    { phrase: 'the side of a square whose area is {0}', referenceable: [0] }),
  unary('circle_area', 'Calculate the area of a circle given its radius', 'The circle radius', 'the circle area',
    real('circle_area', (a) => PI * a ** 2), { phrase: 'the area of a circle with radius {0}', referenceable: [0] }),
  unary('circumface', 'Calculate the circumference of a circle', 'Radius of the circle', 'Circumference of the circle',
    real('circumface', (a) => 2 * PI * a), { phrase: 'the circumference of a circle with radius {0}', referenceable: [0] }),
  unary('surface_sphere', 'Calculate the surface area of a sphere', 'Radius of the sphere', 'Surface area of the sphere',
    real('surface_sphere', (a) => 4 * PI * a ** 2), { phrase: 'the surface area of a sphere with radius {0}', referenceable: [0] }),
  unary('volume_sphere', 'Calculate the volume of a sphere', 'Radius of the sphere', 'Volume of the sphere',
    real('volume_sphere', (a) => (4 / 3) * PI * a ** 3), { phrase: 'the volume of a sphere with radius {0}', referenceable: [0] }),
  unary('volume_cube', 'Calculate the volume of a cube.', 'Length of a side of the cube.', 'Volume of the cube.',
    (a) => pythonPower(a, int(3), 'volume_cube'), { phrase: 'the volume of a cube with side {0}', referenceable: [0] }),
  unary('surface_cube', 'Calculate the surface area of a cube.', 'Length of a side of the cube', 'Surface area of the cube',
    (a) => arithmetic('surface_cube', int(6), pythonPower(a, int(2), 'surface_cube'), 6 * a.value ** 2), { phrase: 'the surface area of a cube with side {0}', referenceable: [0] }),
  unary('cube_edge_by_volume', 'Calculate the edge length of a cube given its volume.', 'Volume of the cube', 'Edge length of the cube',
    (a) => { if (a.value < 0) throw new OperationError('cube_edge_by_volume: math domain error'); return finite(float(a.value ** (1 / 3)), 'cube_edge_by_volume'); }),
  binary('rectangle_area', 'Calculate the area of a rectangle given its length and width', number2('rectangle length', 'rectangle width'),
    'the rectangle area', (a, b) => arithmetic('rectangle_area', a, b, a.value * b.value), { phrase: 'the area of a rectangle of length {0} and width {1}', referenceable: [0, 1] }),
  binary('rectangle_perimeter', 'Calculate the perimeter of a rectangle', number2('rectangle length', 'rectangle width'),
    'the rectangle perimeter', (a, b) => arithmetic('rectangle_perimeter', a, b, 2 * (a.value + b.value)), { phrase: 'the perimeter of a rectangle of length {0} and width {1}', referenceable: [0, 1] }),
  binary('diagonal', 'Calculate the length of the diagonal of a rectangle', number2('Length of the rectangle', 'Width of the rectangle'),
    'Length of the diagonal', real('diagonal', (a, b) => Math.sqrt(a ** 2 + b ** 2)), { phrase: 'the diagonal of a rectangle of length {0} and width {1}', referenceable: [0, 1] }),
  binary('triangle_area', 'Calculate the area of a triangle given base and height', number2('Length of the base of the triangle', 'Height of the triangle'),
    'Area of the triangle', real('triangle_area', (a, b) => 0.5 * a * b), { phrase: 'the area of a triangle with base {0} and height {1}', referenceable: [0, 1] }),
  binary('rhombus_area', 'Calculate the area of a rhombus', number2('Length of the first diagonal', 'Length of the second diagonal'),
    'Area of the rhombus', real('rhombus_area', (a, b) => 0.5 * a * b), { phrase: 'the area of a rhombus with diagonals {0} and {1}', referenceable: [0, 1] }),
  binary('volume_cylinder', 'Calculate the volume of a cylinder', number2('Radius of the base of the cylinder', 'Height of the cylinder'),
    'Volume of the cylinder', real('volume_cylinder', (a, b) => PI * a ** 2 * b), { phrase: 'the volume of a cylinder with radius {0} and height {1}', referenceable: [0, 1] }),
  binary('surface_cylinder', 'Calculate the surface area of a cylinder', number2('Radius of the base of the cylinder', 'Height of the cylinder'),
    'Surface area of the cylinder', real('surface_cylinder', (a, b) => 2 * PI * a * (a + b)), { phrase: 'the surface area of a cylinder with radius {0} and height {1}', referenceable: [0, 1] }),
  binary('volume_cone', 'Calculate the volume of a cone', number2('Radius of the base of the cone', 'Height of the cone'),
    'Volume of the cone', real('volume_cone', (a, b) => (1 / 3) * PI * a ** 2 * b), { phrase: 'the volume of a cone with radius {0} and height {1}', referenceable: [0, 1] }),
];

export const mathOperationsByName: ReadonlyMap<string, MathOperation> = new Map(mathOperations.map((operation) => [operation.name, operation]));

/** Runs an operation on positional arguments, checking the argument count as Python's call would. */
export function runMathOperation(operation: MathOperation, callArguments: readonly OperationArgument[]): PythonNumber {
  const maximum = operation.parameters.length;
  const minimum = maximum - (operation.optionalParameters ?? 0);
  if (callArguments.length < minimum || callArguments.length > maximum) {
    throw new OperationError(`${operation.name} takes ${minimum === maximum ? maximum : `${minimum} to ${maximum}`} arguments, got ${callArguments.length}`);
  }
  return operation.run(callArguments);
}

/**
 * The function executor (paper sections 3.4 and 4.6). Every call is logged and classified by the
 * paper's four predicates (name resolution, schema conformance, dataflow availability, value
 * consistency), in order:
 *   1. tool.unknown                  — no function of that name;
 *   2. arguments.invalid             — arguments not a JSON object, wrong number/names of inputs, or a non-integer value;
 *   3. arguments.value-not-yet-known — a wrong argument whose variable is not yet established: it is fed by a
 *                                      function that has not returned a result earlier in the episode;
 *   4. arguments.incorrect-value     — every wrong argument's variable is established (a prompt input, or the
 *                                      output of a function that has already returned), but its value is wrong.
 * Otherwise the call is `correct` (calls to irrelevant functions with their right inputs are not faults).
 *
 * Availability is dataflow, not value equality: which values the model has seen does not matter, only
 * whether the variable a parameter needs has been produced. A prompt value passed where a function's
 * output is needed is "not yet known" until that function has run, and "incorrect" after.
 *
 * Results: 1 and 2 are errors (the function cannot run). 3 and 4 fail silently, as in the paper: the
 * function returns `{"<out>": <wrong value>}`, a 3-digit value derived from the inputs. Only exactly the
 * right inputs give the right value. With `restate`, every result also carries `known_values`, every
 * variable value the model has seen (latest value per name, wrong ones included).
 */
import type { Environment } from '../../core/environment.ts';
import type { FailureCode } from '../../core/failure.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { dictionaryObject, setOwn } from '../../core/dictionary-object.ts';
import { memoizeByObject } from '../../core/memoize-by-object.ts';
import { hashString } from '../../core/rng.ts';
import type { ToolCall, ToolResult, ToolSpec } from '../../core/tool.ts';
import type { FuncgenFunction, FuncgenParameter, FuncgenTaskView } from './funcgen-task.ts';

export type CallClassification = 'correct' | Extract<FailureCode,
  'tool.unknown' | 'arguments.invalid' | 'arguments.value-not-yet-known' | 'arguments.incorrect-value'>;

/** The four call faults, in the paper's order (Table 3). */
export const callFaults = ['tool.unknown', 'arguments.invalid', 'arguments.value-not-yet-known', 'arguments.incorrect-value'] as const;

export type CallLogEntry = {
  name: string;
  argumentsText: string;
  classification: CallClassification;
  /** Role of the called function; null when it does not exist. */
  role: FuncgenFunction['role'] | null;
  /** The value returned; null when the call was answered with an error. */
  output: number | null;
};

export type FuncgenState = { calls: CallLogEntry[]; knownValues: Record<string, number> };

/** The wrong answer of a function to wrong inputs: deterministic in the inputs, 3 digits, never the right value. */
export function wrongOutput(salt: number, functionName: string, values: readonly number[], rightValue: number): number {
  const value = 100 + (hashString(`${salt}/${functionName}/${values.join(',')}`) % 900);
  return value === rightValue ? 100 + ((value - 100 + 1) % 900) : value;
}

/** A task's functions by name, made once per task view and only read: every trial's environment shares it. */
const functionsByName = memoizeByObject((view: FuncgenTaskView): ReadonlyMap<string, FuncgenFunction> => new Map(view.expected.functions.map((fn) => [fn.name, fn])));

export class FuncgenEnvironment implements Environment {
  private readonly functions: ReadonlyMap<string, FuncgenFunction>;
  private readonly log: CallLogEntry[] = [];
  /** Functions that have returned a value: their output variables are established (predicate 3). */
  private readonly returnedFunctions = new Set<string>();
  /** Latest value per variable name, in discovery order, for `restate`. */
  private readonly knownValues = new Map<string, number>();

  constructor(private readonly view: FuncgenTaskView, private readonly tools: ToolSpec[]) {
    this.functions = functionsByName(view);
    for (const input of view.expected.inputs) this.learn(input.name, input.value);
  }

  listTools(): ToolSpec[] {
    return this.tools;
  }

  async callTool(call: ToolCall): Promise<ToolResult> {
    const fn = this.functions.get(call.name);
    const record = (classification: CallClassification, output: number | null): void => {
      this.log.push({ name: call.name, argumentsText: call.argumentsText, classification, role: fn?.role ?? null, output });
    };
    if (fn === undefined) {
      record('tool.unknown', null);
      return { ok: false, error: { code: 'tool.unknown', message: `there is no function named '${call.name}'` } };
    }
    const invalid = invalidArguments(fn, call.arguments);
    if (invalid !== undefined) {
      record('arguments.invalid', null);
      return { ok: false, error: { code: 'arguments.invalid', message: `${fn.name}: ${invalid}` } };
    }
    const values = fn.parameters.map((parameter) => (call.arguments as Record<string, number>)[parameter.name]);
    // A right value passes even if its variable was never produced: only a lucky guess could give it, and the function runs on values.
    const wrong = fn.parameters.filter((parameter, index) => values[index] !== parameter.value);
    const classification: CallClassification = wrong.length === 0 ? 'correct'
      : wrong.some((parameter) => !this.isEstablished(parameter)) ? 'arguments.value-not-yet-known' : 'arguments.incorrect-value';
    const output = wrong.length === 0 ? fn.output.value : wrongOutput(this.view.expected.wrongOutputSalt, fn.name, values, fn.output.value);
    record(classification, output);
    // Calls run in the order the model listed them, so a later call of the same turn sees this output as established.
    this.returnedFunctions.add(fn.name);
    this.learn(fn.output.name, output);
    const result = dictionaryObject<JsonValue>();
    setOwn(result, fn.output.name, output);
    if (this.view.params.restate) result.known_values = this.knownValuesObject();
    return { ok: true, output: result };
  }

  async snapshotState(): Promise<JsonValue> {
    const state: FuncgenState = { calls: this.log.map((entry) => ({ ...entry })), knownValues: this.knownValuesObject() };
    return state;
  }

  /**
   * The known values as an object, in discovery order. Variable names are fresh random keys in every task: a
   * dictionary-mode object takes them without building a hidden class per key (as `{[name]: value}` would).
   */
  private knownValuesObject(): Record<string, number> {
    const values = dictionaryObject<number>();
    for (const [name, value] of this.knownValues) setOwn(values, name, value);
    return values;
  }

  async dispose(): Promise<void> {}

  /** Whether a parameter's variable has been established: a prompt input, or the output of a function that has returned. */
  private isEstablished(parameter: FuncgenParameter): boolean {
    return parameter.source.kind === 'input' || this.returnedFunctions.has(parameter.source.function);
  }

  private learn(name: string, value: number): void {
    this.knownValues.delete(name);
    this.knownValues.set(name, value);
  }
}

/** Why the arguments do not fit the schema (exactly the parameters, all integers), or undefined when they do. */
function invalidArguments(fn: FuncgenFunction, args: JsonObject | undefined): string | undefined {
  if (args === undefined) return 'the arguments are not a JSON object';
  const expected = fn.parameters.map((parameter) => parameter.name);
  const given = Object.keys(args);
  const missing = expected.filter((name) => !given.includes(name));
  const extra = given.filter((name) => !expected.includes(name));
  if (missing.length > 0 || extra.length > 0) {
    const parts = [missing.length > 0 ? `missing ${missing.join(', ')}` : '', extra.length > 0 ? `unexpected ${extra.join(', ')}` : ''];
    return `takes exactly ${expected.join(', ')} (${parts.filter(Boolean).join('; ')})`;
  }
  const notInteger = expected.filter((name) => !Number.isInteger(args[name]));
  if (notInteger.length > 0) return `${notInteger.join(', ')} must be integers`;
  return undefined;
}

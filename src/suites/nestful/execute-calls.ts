/**
 * Executes a predicted call sequence the way NESTFUL's win rate does: calls in order, each looked up by
 * name in the sample's tools (which must declare exactly one output), arguments passed positionally in
 * the order written, `"$label.field$"` (or `"$label.field"` without the trailing `$`) resolved from
 * earlier results, and the answer is the output of the last call. Any failure means no answer.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import { isFloatLiteral, markFloat } from './lenient-json.ts';
import { mathOperationsByName, OperationError, runMathOperation } from './math-operations.ts';
import type { MathOperation, OperationArgument, PythonNumber } from './math-operations.ts';
import type { NestfulTool } from './nestful-sample.ts';

export type ExecutionFailure = { code: 'tool.unknown' | 'arguments.invalid' | 'execution.error'; message: string };
export type ExecutionOutcome = { ok: true; answer: JsonValue } | { ok: false; failure: ExecutionFailure };

/** Each label's outputs; a float output is marked (lenient-json's float marks), as Python keeps `4.0` a float. */
export type Results = Map<string, Record<string, JsonValue>>;

/** Records a call's output under its label, keeping whether it is a Python float. */
export function recordResult(results: Results, label: string, output: string, result: PythonNumber): void {
  const record: Record<string, JsonValue> = { [output]: result.value };
  if (result.kind === 'float') markFloat(record, output);
  results.set(label, record);
}

/** Resolves one argument value; a reference that cannot be resolved is an invalid argument. */
export function resolveReference(argument: OperationArgument, results: Results): { ok: true; argument: OperationArgument } | { ok: false; message: string } {
  const { value } = argument;
  if (typeof value !== 'string') return { ok: true, argument };
  let body: string;
  if (value.startsWith('$') && value.endsWith('$')) body = value.slice(1, -1);
  else if (value.startsWith('$var')) body = value.slice(1);
  else return { ok: true, argument };
  const dot = body.indexOf('.');
  if (dot < 0) return { ok: false, message: `reference '${value}' names no output field ("$label.field$")` };
  const label = body.slice(0, dot);
  const field = body.slice(dot + 1);
  const outputs = results.get(label);
  if (!outputs) return { ok: false, message: `reference '${value}': no earlier call is labelled '${label}'` };
  if (!Object.hasOwn(outputs, field)) return { ok: false, message: `reference '${value}': call '${label}' has no output '${field}'` };
  return { ok: true, argument: { value: outputs[field], isFloat: isFloatLiteral(outputs, field) } };
}

/** The arguments of a parsed call object, in the order written, each with its float-literal mark. */
export function argumentsOf(callArguments: JsonObject, names: readonly string[] = Object.keys(callArguments)): OperationArgument[] {
  return names.map((name) => ({ value: callArguments[name], isFloat: isFloatLiteral(callArguments, name) }));
}

/** Resolves the argument values (references included) and runs one operation on them. */
export function applyOperation(operation: MathOperation, rawArguments: readonly OperationArgument[], results: Results):
  { ok: true; value: PythonNumber } | { ok: false; failure: ExecutionFailure } {
  const resolvedArguments: OperationArgument[] = [];
  for (const argument of rawArguments) {
    const resolved = resolveReference(argument, results);
    if (!resolved.ok) return { ok: false, failure: { code: 'arguments.invalid', message: resolved.message } };
    resolvedArguments.push(resolved.argument);
  }
  try {
    return { ok: true, value: runMathOperation(operation, resolvedArguments) };
  } catch (error) {
    if (!(error instanceof OperationError)) throw error;
    const code = /arguments?|must be/.test(error.message) ? 'arguments.invalid' : 'execution.error';
    return { ok: false, failure: { code, message: error.message } };
  }
}

/** Every call runs, a `var_result` pseudo-call included (it is no tool, so the run fails, as the official one does). */
export function executeCallSequence(sequence: readonly JsonObject[], tools: readonly NestfulTool[]): ExecutionOutcome {
  if (sequence.length === 0) return { ok: false, failure: { code: 'execution.error', message: 'the prediction has no calls' } };
  const results: Results = new Map();
  let lastLabel = '';
  for (const call of sequence) {
    const name = String(call.name);
    const tool = tools.find((candidate) => candidate.name === name);
    const operation = mathOperationsByName.get(name);
    if (!tool || !operation) return { ok: false, failure: { code: 'tool.unknown', message: `'${name}' is not one of the offered tools` } };
    if (typeof call.label !== 'string') return { ok: false, failure: { code: 'arguments.invalid', message: `call '${name}' has no label` } };
    const outputs = Object.keys(tool.output_parameters);
    if (outputs.length !== 1) return { ok: false, failure: { code: 'execution.error', message: `'${name}' does not declare exactly one output` } };
    if (!isJsonObject(call.arguments)) return { ok: false, failure: { code: 'arguments.invalid', message: `call '${name}' has no arguments object` } };
    // Positionally, in the order the arguments were written, as the official executor does.
    const applied = applyOperation(operation, argumentsOf(call.arguments), results);
    if (!applied.ok) return applied;
    lastLabel = call.label.replaceAll('$', '');
    recordResult(results, lastLabel, outputs[0], applied.value);
  }
  const final = results.get(lastLabel) ?? {};
  return { ok: true, answer: Object.values(final)[0] ?? null };
}

/** Python `==` on JSON-loaded values (numbers compare by value: 20 == 20.0). */
function pythonEqual(left: JsonValue, right: JsonValue): boolean {
  if (typeof left === 'number' && typeof right === 'number') return left === right;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => pythonEqual(item, right[index]));
  }
  if (isJsonObject(left) && isJsonObject(right)) {
    const keys = Object.keys(left);
    return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && pythonEqual(left[key], right[key]));
  }
  return left === right;
}

/**
 * The win check: a float gold answer rounds the predicted number to the decimals `str(gold)` shows
 * (rounding an integer-valued prediction changes nothing, so int predictions need no special case).
 */
export function answerMatches(predicted: JsonValue, gold: JsonValue, goldDecimals: number | undefined, round: (value: number, decimals: number) => number): boolean {
  if (goldDecimals !== undefined && typeof predicted === 'number' && typeof gold === 'number') {
    return round(predicted, goldDecimals) === gold;
  }
  return pythonEqual(predicted, gold);
}

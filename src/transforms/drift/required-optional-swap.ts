/**
 * Required <-> optional swaps (DynamicToolBench operator 6): with the configured probability one
 * random required parameter becomes optional, and with the same probability one random optional
 * parameter becomes required. Unlike the reference, the parameter made required is drawn only
 * among optional parameters that declare a default of their own type (and never the one just made optional): then
 * every old call has an exact equivalent under the new schema (the default, stated explicitly).
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { DriftChange, DriftOperator } from './drift-model.ts';
import { copyEndpoint, isDriftable } from './drift-model.ts';

export const requiredOptionalSwap: DriftOperator = (endpoint, context) => {
  const result = copyEndpoint(endpoint);
  const changes: DriftChange[] = [];
  const required = result.parameters.filter((parameter) => parameter.required && isDriftable(parameter));
  const makeOptional = context.rng.bool(context.probability);
  const moved = required.length > 0 && makeOptional ? required[context.rng.int(0, required.length - 1)] : undefined;
  if (moved) {
    moved.required = false;
    const change: Extract<DriftChange, { kind: 'required-to-optional' }> = { kind: 'required-to-optional', location: moved.location, parameter: moved.name };
    if (moved.schema.default !== undefined) change.default = moved.schema.default;
    changes.push(change);
  }
  const optional = result.parameters.filter((parameter) => !parameter.required && parameter !== moved
    && isDriftable(parameter) && defaultFitsType(parameter.schema));
  const makeRequired = context.rng.bool(context.probability);
  if (optional.length > 0 && makeRequired) {
    const chosen = optional[context.rng.int(0, optional.length - 1)];
    chosen.required = true;
    changes.push({ kind: 'optional-to-required', location: chosen.location, parameter: chosen.name, default: chosen.schema.default as JsonValue });
  }
  return { ...result, changes };
};

/** A default of the declared type (documentation often writes "10" for an integer): only then is it a valid explicit value. */
export function defaultFitsType(schema: JsonObject): boolean {
  const value = schema.default;
  if (value === undefined) return false;
  switch (schema.type) {
    case 'integer': return typeof value === 'number' && Number.isInteger(value);
    case 'number': return typeof value === 'number';
    case 'boolean': return typeof value === 'boolean';
    case 'string': return typeof value === 'string' && matchesPattern(schema.pattern, value);
    case 'array': return Array.isArray(value);
    case 'object': return typeof value === 'object' && value !== null && !Array.isArray(value);
    default: return true;
  }
}

function matchesPattern(pattern: JsonValue | undefined, value: string): boolean {
  if (typeof pattern !== 'string') return true;
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return false;
  }
}

/**
 * Type drift (DynamicToolBench operator 3): every integer or boolean parameter becomes a string.
 * The new schema carries a pattern (digits, or true/false) so that a value the new server accepts
 * always converts back to the type the original implementation expects; numeric bounds go with the
 * old type, and default and enum values are written as strings.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { DriftChange, DriftOperator } from './drift-model.ts';
import { copyEndpoint, isDriftable } from './drift-model.ts';
import { stringifyValue } from './argument-mapping.ts';

const numericKeywords = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format'];

export const typeDrift: DriftOperator = (endpoint) => {
  const result = copyEndpoint(endpoint);
  const changes: DriftChange[] = [];
  for (const parameter of result.parameters) {
    if (!isDriftable(parameter)) continue;
    const from = driftableType(parameter.schema.type);
    if (from === undefined) continue;
    parameter.schema = stringSchema(parameter.schema, from);
    changes.push({ kind: 'type-drifted', location: parameter.location, parameter: parameter.name, from, to: 'string' });
  }
  return { ...result, changes };
};

/** integer (also spelled int, any case) and boolean, as the reference matches them. */
function driftableType(type: JsonValue | undefined): 'integer' | 'boolean' | undefined {
  if (typeof type !== 'string') return undefined;
  const lower = type.toLowerCase();
  if (lower === 'integer' || lower === 'int') return 'integer';
  if (lower === 'boolean') return 'boolean';
  return undefined;
}

function stringSchema(schema: JsonObject, from: 'integer' | 'boolean'): JsonObject {
  const result: JsonObject = { ...schema, type: 'string', pattern: from === 'integer' ? '^-?[0-9]+$' : '^(true|false)$' };
  if (from === 'integer') for (const keyword of numericKeywords) delete result[keyword];
  if (result.default !== undefined) {
    // Documentation writes "False" or "10" for typed defaults: normalise, and drop a default the new type cannot hold.
    const text = stringifyValue(result.default);
    const normalised = typeof text === 'string' && from === 'boolean' ? text.toLowerCase() : text;
    if (typeof normalised === 'string' && new RegExp(result.pattern as string).test(normalised)) result.default = normalised;
    else delete result.default;
  }
  if (Array.isArray(result.enum)) result.enum = result.enum.map(stringifyValue);
  if (Array.isArray(result.examples)) result.examples = result.examples.map(stringifyValue);
  if (result.example !== undefined) result.example = stringifyValue(result.example);
  return result;
}

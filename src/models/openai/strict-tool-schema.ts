/**
 * OpenAI's strict function calling (`"strict": true` on a function, as FuncBenchGen sends its tools,
 * appendix B.3): the model's arguments are constrained to the schema. OpenAI accepts a strict schema
 * only when every object lists all of its properties as required and allows no others. A schema that
 * already requires every property is sent strict, with `additionalProperties: false` on every object.
 * A schema with an optional property or a free-form object cannot be made strict without changing
 * what it accepts, so its tool is sent without `strict`, and the caller warns with the reason.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { JsonSchema } from '../../core/tool.ts';

export type StrictSchemaResult = { ok: true; schema: JsonSchema } | { ok: false; reason: string };

/** Keywords OpenAI's strict mode does not accept, whose meaning we cannot keep by rewriting. */
const unsupportedKeywords = ['oneOf', 'allOf', 'not', 'if', 'patternProperties', 'dependentRequired', 'dependentSchemas'];

export function toStrictSchema(schema: JsonSchema): StrictSchemaResult {
  try {
    return { ok: true, schema: strictNode(schema, '') as JsonSchema };
  } catch (error) {
    if (error instanceof NotStrict) return { ok: false, reason: error.message };
    throw error;
  }
}

class NotStrict extends Error {}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strictNode(node: JsonValue, path: string): JsonValue {
  if (!isObject(node)) return node;
  const at = path === '' ? 'the schema' : path;
  for (const keyword of unsupportedKeywords) {
    if (keyword in node) throw new NotStrict(`${at} uses '${keyword}'`);
  }
  const result: JsonObject = { ...node };
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('object') || 'properties' in node) {
    const properties = isObject(node.properties) ? node.properties : {};
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
      throw new NotStrict(`${at} allows additional properties`);
    }
    // Without `properties`, an object schema accepts any keys unless it already forbids them.
    if (!isObject(node.properties) && node.additionalProperties !== false) throw new NotStrict(`${at} is a free-form object`);
    const required = Array.isArray(node.required) ? node.required : [];
    const optional = Object.keys(properties).filter((name) => !required.includes(name));
    if (optional.length > 0) throw new NotStrict(`${at} has optional properties (${optional.join(', ')})`);
    result.properties = Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, strictNode(value, `${path}.${name}`)]));
    result.required = [...required];
    result.additionalProperties = false;
  }
  if (node.items !== undefined) result.items = strictNode(node.items, `${path}[]`);
  if (Array.isArray(node.anyOf)) result.anyOf = node.anyOf.map((branch, index) => strictNode(branch, `${path}.anyOf[${index}]`));
  for (const definitions of ['$defs', 'definitions'] as const) {
    const group = node[definitions];
    if (isObject(group)) result[definitions] = Object.fromEntries(Object.entries(group).map(([name, value]) => [name, strictNode(value, `${path}.${definitions}.${name}`)]));
  }
  return result;
}

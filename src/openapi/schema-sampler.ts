/**
 * Seeded, schema-valid example values for OpenAPI schemas (used by generators to fill arguments).
 * Works on dereferenced schemas, which may be circular: recursion stops at a depth limit, where
 * optional members are left out.
 */
import type { JsonObject, JsonValue } from '../core/json.ts';
import { isJsonObject } from '../core/json.ts';
import type { Rng } from '../core/rng.ts';

export type SampleOptions = {
  /** Probability of including each optional object property (at the top level of the value). */
  optionalProbability: number;
  /** Nesting depth beyond which only required members are produced. */
  maxDepth: number;
};

const defaultOptions: SampleOptions = { optionalProbability: 0.3, maxDepth: 3 };

const words = ['alpha', 'project', 'weekly', 'report', 'launch', 'review', 'budget', 'design', 'sprint', 'notes', 'team', 'roadmap'];

export function sampleSchemaValue(schema: JsonObject | undefined, rng: Rng, options: Partial<SampleOptions> = {}, name = 'value'): JsonValue {
  return sample(schema ?? {}, rng, { ...defaultOptions, ...options }, 0, name);
}

function sample(schema: JsonObject, rng: Rng, options: SampleOptions, depth: number, name: string): JsonValue {
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const values = schema.enum.filter((value) => value !== null);
    return values.length > 0 ? rng.pick(values) : null;
  }
  if (Array.isArray(schema.allOf)) return sampleAllOf(schema, rng, options, depth, name);
  for (const combinator of ['oneOf', 'anyOf'] as const) {
    const members = schema[combinator];
    if (Array.isArray(members) && members.length > 0) {
      const objects = members.filter(isJsonObject);
      if (objects.length > 0) return sample(rng.pick(objects), rng, options, depth, name);
    }
  }
  const type = schemaType(schema);
  switch (type) {
    case 'integer':
    case 'number':
      return sampleNumber(schema, rng, type);
    case 'boolean':
      return rng.bool();
    case 'array': {
      const items = isJsonObject(schema.items) ? schema.items : {};
      const minimum = typeof schema.minItems === 'number' ? schema.minItems : 1;
      const maximum = Math.max(minimum, Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 2, minimum + 1));
      const count = depth >= options.maxDepth ? minimum : rng.int(minimum, maximum);
      const values: JsonValue[] = [];
      for (let index = 0; index < count; index += 1) values.push(sample(items, rng.child(name, index), options, depth + 1, name));
      return schema.uniqueItems === true ? dedupe(values) : values;
    }
    case 'object':
      return sampleObject(schema, rng, options, depth);
    default:
      return sampleString(schema, rng, name);
  }
}

function schemaType(schema: JsonObject): string {
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== 'null') : schema.type;
  if (typeof type === 'string') return type;
  if (isJsonObject(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return 'string';
}

function sampleAllOf(schema: JsonObject, rng: Rng, options: SampleOptions, depth: number, name: string): JsonValue {
  const members = (schema.allOf as JsonValue[]).filter(isJsonObject);
  const { allOf: _members, ...merged } = schema;
  const properties: JsonObject = isJsonObject(schema.properties) ? { ...schema.properties } : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((entry): entry is string => typeof entry === 'string') : []);
  for (const member of members) {
    if (isJsonObject(member.properties)) Object.assign(properties, member.properties);
    if (Array.isArray(member.required)) for (const entry of member.required) if (typeof entry === 'string') required.add(entry);
    if (member.type !== undefined && merged.type === undefined) merged.type = member.type;
  }
  if (Object.keys(properties).length === 0 && members.length > 0) return sample({ ...members[0] }, rng, options, depth, name);
  return sample({ ...merged, type: 'object', properties, required: [...required] }, rng, options, depth, name);
}

function sampleObject(schema: JsonObject, rng: Rng, options: SampleOptions, depth: number): JsonObject {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((entry): entry is string => typeof entry === 'string') : []);
  const value: JsonObject = {};
  for (const [property, propertySchema] of Object.entries(properties)) {
    if (!isJsonObject(propertySchema) || propertySchema.readOnly === true) continue;
    const include = required.has(property) || (depth < options.maxDepth && rng.child('include', property).bool(options.optionalProbability));
    if (include) value[property] = sample(propertySchema, rng.child('property', property), options, depth + 1, property);
  }
  return value;
}

function sampleNumber(schema: JsonObject, rng: Rng, type: 'integer' | 'number'): number {
  const exclusiveMinimum = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : undefined;
  const exclusiveMaximum = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : undefined;
  let minimum = typeof schema.minimum === 'number' ? schema.minimum : exclusiveMinimum ?? 1;
  let maximum = typeof schema.maximum === 'number' ? schema.maximum : exclusiveMaximum ?? Math.max(minimum, 100);
  if (schema.exclusiveMinimum === true) minimum += 1;
  if (schema.exclusiveMaximum === true) maximum -= 1;
  minimum = Math.ceil(minimum);
  maximum = Math.floor(Math.min(maximum, minimum + 1000));
  if (maximum < minimum) maximum = minimum;
  let value = rng.int(minimum, maximum);
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  return type === 'number' && rng.bool(0.3) && maximum > minimum ? Math.min(maximum, value + 0.5) : value;
}

function sampleString(schema: JsonObject, rng: Rng, name: string): string {
  if (typeof schema.example === 'string' && (schema.pattern !== undefined || rng.bool(0.5))) return schema.example;
  const year = 2024 + rng.int(0, 2);
  const month = String(rng.int(1, 12)).padStart(2, '0');
  const day = String(rng.int(1, 28)).padStart(2, '0');
  switch (schema.format) {
    case 'date':
      return `${year}-${month}-${day}`;
    case 'date-time':
    case 'google-datetime':
      return `${year}-${month}-${day}T${String(rng.int(8, 18)).padStart(2, '0')}:00:00Z`;
    case 'email':
      return `${rng.pick(words)}.${rng.letters(4)}@example.com`;
    case 'uri':
    case 'url':
      return `https://example.com/${rng.pick(words)}/${rng.int(100, 999)}`;
    case 'uuid':
      return `${hex(rng, 8)}-${hex(rng, 4)}-4${hex(rng, 3)}-a${hex(rng, 3)}-${hex(rng, 12)}`;
    case 'int64':
    case 'uint64':
      return String(rng.int(100000, 999999));
    default:
      break;
  }
  const minimum = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maximum = typeof schema.maxLength === 'number' ? schema.maxLength : 40;
  let text = /(^|_)(gid|id)$|Id$/.test(name) ? String(rng.int(10000, 99999)) : `${rng.pick(words)} ${rng.pick(words)}`;
  while (text.length < minimum) text += rng.letters(1);
  return text.slice(0, Math.max(maximum, 1));
}

function hex(rng: Rng, length: number): string {
  let text = '';
  for (let index = 0; index < length; index += 1) text += rng.int(0, 15).toString(16);
  return text;
}

function dedupe(values: JsonValue[]): JsonValue[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The offline simulator of the virtual API: it fills an API's `template_response` shape with
 * values drawn from a stream seeded by the seed, the API and the canonical arguments, so the same
 * call always gets the same answer. Template leaves are type names ("str", "int", "float", "bool",
 * "NoneType"...); an object in a list carries `_list_length` (how many items to make); a string
 * "list of <type> with length <n>" in a list stands for n values of that type. String values echo
 * an argument when the field is named like one, so answers stay on topic.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { canonicalJson, isJsonObject } from '../../core/json.ts';
import { Rng, hashString } from '../../core/rng.ts';
import type { ApiAddress, VirtualResponse } from './response-cache.ts';

const words = ['alpha', 'bravo', 'delta', 'echo', 'harbor', 'meadow', 'river', 'summit', 'violet', 'zephyr', 'orbit', 'maple'];

export function simulateResponse(address: ApiAddress, arguments_: JsonObject, template: JsonValue | undefined, seed: number): VirtualResponse {
  const rng = new Rng(seed).child('toolbench-simulator', hashString(canonicalJson([address.category, address.tool, address.api, arguments_])));
  // The first outputs of a freshly seeded xoroshiro128+ are poorly mixed: discard a few.
  for (let draw = 0; draw < 4; draw += 1) rng.float();
  if (template === undefined || template === null || (isJsonObject(template) && Object.keys(template).length === 0)) {
    return { error: '', response: canonicalJson({ result: `${address.api} completed`, input: arguments_ }) };
  }
  return { error: '', response: JSON.stringify(fill(template, rng, arguments_, undefined, 0)) };
}

function fill(template: JsonValue, rng: Rng, arguments_: JsonObject, field: string | undefined, depth: number): JsonValue {
  if (depth > 12) return null;
  if (typeof template === 'string') return leaf(template, rng, arguments_, field);
  if (Array.isArray(template)) {
    const items: JsonValue[] = [];
    for (const item of template) {
      const listOf = typeof item === 'string' ? /^list of (\w+) with length (\d+)$/.exec(item) : null;
      if (listOf) {
        for (let index = 0; index < Math.min(Number(listOf[2]), 10); index += 1) items.push(leaf(listOf[1], rng, arguments_, field));
      } else if (isJsonObject(item) && typeof item._list_length === 'number') {
        const { _list_length: length, ...shape } = item;
        for (let index = 0; index < Math.min(length as number, 10); index += 1) items.push(fill(shape, rng, arguments_, field, depth + 1));
      } else {
        items.push(fill(item, rng, arguments_, field, depth + 1));
      }
    }
    return items;
  }
  if (isJsonObject(template)) {
    const result: JsonObject = {};
    for (const [key, value] of Object.entries(template)) result[key] = fill(value, rng, arguments_, key, depth + 1);
    return result;
  }
  return template;
}

function leaf(type: string, rng: Rng, arguments_: JsonObject, field: string | undefined): JsonValue {
  switch (type.toLowerCase()) {
    case 'int': return rng.int(0, 1000);
    case 'float': return Math.round(rng.float() * 100000) / 100;
    case 'bool': return rng.bool();
    case 'nonetype': case 'none': return null;
    case 'str': {
      if (field !== undefined && Object.hasOwn(arguments_, field)) return String(arguments_[field]);
      return `${rng.pick(words)}-${rng.letters(4)}`;
    }
    default: return type;
  }
}

/**
 * Default flips (DynamicToolBench operator 4): a default of asc/desc or true/false (compared as
 * lower-case text) is flipped. A string default is written back lower-case, as the reference
 * does; a boolean default stays boolean. A caller that relied on the old default silently gets the
 * new behaviour: nothing is rejected, which is the point of this operator.
 */
import type { JsonValue } from '../../core/json.ts';
import type { DriftChange, DriftOperator } from './drift-model.ts';
import { copyEndpoint, isDriftable } from './drift-model.ts';

const flips: Readonly<Record<string, string>> = { asc: 'desc', desc: 'asc', true: 'false', false: 'true' };

export const defaultFlip: DriftOperator = (endpoint) => {
  const result = copyEndpoint(endpoint);
  const changes: DriftChange[] = [];
  for (const parameter of result.parameters) {
    if (!isDriftable(parameter) || parameter.schema.default === undefined) continue;
    const from = parameter.schema.default;
    const flipped = flippedDefault(from);
    if (flipped === undefined) continue;
    // An enum keeps its own spelling (ASC/DESC): the new default must stay a legal value.
    const members = Array.isArray(parameter.schema.enum) ? parameter.schema.enum : [];
    const to = members.find((member) => typeof member === 'string' && typeof flipped === 'string' && member.toLowerCase() === flipped) ?? flipped;
    parameter.schema = { ...parameter.schema, default: to };
    changes.push({ kind: 'default-flipped', location: parameter.location, parameter: parameter.name, from, to });
  }
  return { ...result, changes };
};

export function flippedDefault(value: JsonValue): JsonValue | undefined {
  if (typeof value === 'boolean') return !value;
  if (typeof value !== 'string') return undefined;
  return flips[value.toLowerCase()];
}

/**
 * Nested-object introduction (DynamicToolBench operator 5): with the configured probability, the
 * required parameters whose name contains `address`, `geo` or `coord` are grouped into one new
 * required object parameter named `address` ("Nested compound object automatically created."),
 * whose fields keep their names and schemas. Only argument objects and JSON bodies nest; the
 * operator leaves the endpoint alone when a parameter named `address` would be shadowed.
 */
import type { JsonObject } from '../../core/json.ts';
import type { DriftChange, DriftOperator, DriftParameter } from './drift-model.ts';
import { copyEndpoint, isDriftable, isNestable } from './drift-model.ts';

export const nestingMarkers: readonly string[] = ['address', 'geo', 'coord'];
export const nestedObjectName = 'address';
export const nestedObjectDescription = 'Nested compound object automatically created.';

export const nestedObject: DriftOperator = (endpoint, context) => {
  const result = copyEndpoint(endpoint);
  // Drawn first and always, so that the stream does not depend on whether anything is nestable.
  if (!context.rng.bool(context.probability)) return { ...result, changes: [] };
  const changes: DriftChange[] = [];
  const locations = [...new Set(result.parameters.map((parameter) => parameter.location))].filter(isNestable);
  for (const location of locations) {
    const group = result.parameters.filter((parameter) => parameter.location === location && parameter.required
      && isDriftable(parameter) && nestingMarkers.some((marker) => parameter.name.includes(marker)));
    if (group.length === 0) continue;
    const shadowed = result.parameters.some((parameter) => parameter.location === location
      && parameter.name === nestedObjectName && !group.includes(parameter));
    if (shadowed) continue;
    const object: DriftParameter = { name: nestedObjectName, location, required: true, schema: objectSchema(group) };
    result.parameters = [...result.parameters.filter((parameter) => !group.includes(parameter)), object];
    changes.push({ kind: 'nested-object', location, object: nestedObjectName, fields: group.map((parameter) => parameter.name) });
  }
  return { ...result, changes };
};

function objectSchema(group: readonly DriftParameter[]): JsonObject {
  const properties: JsonObject = {};
  for (const parameter of group) properties[parameter.name] = parameter.schema;
  return {
    type: 'object',
    description: nestedObjectDescription,
    properties,
    required: group.map((parameter) => parameter.name),
    additionalProperties: false,
  };
}

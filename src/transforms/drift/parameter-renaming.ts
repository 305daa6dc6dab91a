/**
 * Parameter renaming (DynamicToolBench operator 2): every parameter, required or optional, whose
 * name is in the semantic map is renamed to its synonym, unless the synonym is already a parameter
 * of the same location (a real API would not ship two parameters with one name).
 */
import type { DriftChange, DriftOperator } from './drift-model.ts';
import { copyEndpoint, isDriftable } from './drift-model.ts';
import { semanticRenames } from './semantic-renames.ts';

export function createParameterRenaming(renames: Readonly<Record<string, string>> = semanticRenames): DriftOperator {
  return (endpoint) => {
    const result = copyEndpoint(endpoint);
    const changes: DriftChange[] = [];
    for (const parameter of result.parameters) {
      if (!isDriftable(parameter) || !Object.hasOwn(renames, parameter.name)) continue;
      const to = renames[parameter.name];
      const taken = result.parameters.some((other) => other.location === parameter.location && other.name === to);
      if (taken || to === parameter.name) continue;
      changes.push({ kind: 'parameter-renamed', location: parameter.location, from: parameter.name, to });
      parameter.name = to;
    }
    return { ...result, changes };
  };
}

export const parameterRenaming: DriftOperator = createParameterRenaming();

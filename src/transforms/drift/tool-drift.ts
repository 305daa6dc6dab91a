/**
 * Drift of a tool list (ToolSpec[], JSON Schema argument objects): each tool is read as an
 * endpoint, drifted, and written back as a ToolSpec. The result is plain JSON (the new tools and
 * one change log per tool, unchanged tools included with no changes), so it can be stored with a
 * task and turned into a call mapper in any later process.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { DriftEndpoint, DriftParameter, EndpointChangeLog } from './drift-model.ts';
import type { DriftOperatorId, DriftOptions } from './drift-operators.ts';
import { defaultDriftProbability, driftEndpoint } from './drift-operators.ts';

export type DriftedTools = {
  operator: DriftOperatorId;
  seed: number;
  probability: number;
  /** The tools under the new interface, in the original order. */
  tools: ToolSpec[];
  /** One log per original tool, in the original order. */
  log: EndpointChangeLog[];
};

export type ToolDriftOptions = DriftOptions & {
  /** Tools left exactly as they are (a benchmark's own control tool such as StableToolBench's Finish). */
  untouched?: readonly string[];
};

export function driftTools(tools: readonly ToolSpec[], operator: DriftOperatorId, seed: number, options: ToolDriftOptions = {}): DriftedTools {
  const probability = options.probability ?? defaultDriftProbability;
  const untouched = new Set(options.untouched ?? []);
  const takenNames = new Set(tools.map((tool) => tool.name));
  const drifted: ToolSpec[] = [];
  const log: EndpointChangeLog[] = [];
  for (const tool of tools) {
    if (untouched.has(tool.name)) {
      drifted.push(structuredClone(tool));
      log.push({ key: tool.name, from: tool.name, to: tool.name, changes: [] });
      continue;
    }
    const others = { has: (name: string): boolean => name !== tool.name && takenNames.has(name) };
    const result = driftEndpoint(toolEndpoint(tool), operator, seed, { ...options, probability, takenNames: others });
    takenNames.add(result.name);
    drifted.push(endpointTool(tool, result));
    log.push({ key: tool.name, from: tool.name, to: result.name, changes: result.changes });
  }
  return { operator, seed, probability, tools: drifted, log };
}

/** Original names of the tools with at least one change. */
export function changedToolNames(drifted: Pick<DriftedTools, 'log'>): string[] {
  return drifted.log.filter((entry) => entry.changes.length > 0).map((entry) => entry.key);
}

export function toolEndpoint(tool: ToolSpec): DriftEndpoint {
  const properties = isJsonObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : [];
  const parameters: DriftParameter[] = Object.entries(properties).map(([name, schema]) => ({
    name,
    location: 'argument',
    required: required.includes(name),
    schema: isJsonObject(schema) ? schema : {},
  }));
  return { key: tool.name, name: tool.name, kind: 'tool', parameters };
}

function endpointTool(original: ToolSpec, endpoint: DriftEndpoint): ToolSpec {
  const properties: JsonObject = {};
  for (const parameter of endpoint.parameters) properties[parameter.name] = parameter.schema;
  const required: JsonValue[] = endpoint.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name);
  const inputSchema: JsonObject = { ...original.inputSchema, type: 'object', properties };
  if (required.length > 0) inputSchema.required = required;
  else delete inputSchema.required;
  return { name: endpoint.name, description: original.description, inputSchema: structuredClone(inputSchema) };
}

/**
 * One NESTFUL sample as the suite keeps it. The gold call list and gold answer are kept as Python
 * `json.dumps` text (as the official result files hold them), so float literals such as `130.0` survive
 * serialisation into task files and the scorer sees exactly what the official scorer sees.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { ToolSpec } from '../../core/tool.ts';
import { mathOperationsByName } from './math-operations.ts';

/** math: `$var_1.result$` references; code: `$var1.output_0$`; v1: the paper's first release (`var1`, `var_result`). */
export type NestfulFlavour = 'math' | 'code' | 'v1';

/** A tool as NESTFUL specifies it: flat parameter maps, not JSON Schema. */
export type NestfulTool = {
  name: string;
  description: string;
  parameters: JsonObject;
  output_parameters: JsonObject;
};

export type NestfulSample = {
  sampleId: string;
  input: string;
  flavour: NestfulFlavour;
  /** The gold call list, `json.dumps` form. */
  outputJson: string;
  /** The gold answer, `json.dumps` form; null when the data has none (v1). */
  goldAnswerJson: string | null;
  tools: NestfulTool[];
};

/** The pseudo-call v1 data ends with to aggregate results; never a real call. */
export const resultPseudoCall = 'var_result';

/** True when every tool of the sample is a math operation we execute natively. */
export function hasExecutableTools(tools: readonly NestfulTool[]): boolean {
  return tools.every((tool) => {
    const operation = mathOperationsByName.get(tool.name);
    return operation !== undefined && Object.keys(tool.output_parameters).length === 1;
  });
}

/** NESTFUL's type strings ("int or float", "list of float") and JSON-Schema-ish leaves as JSON Schema. */
function parameterSchema(parameter: JsonValue): JsonObject {
  const description = isJsonObject(parameter) && typeof parameter.description === 'string' ? parameter.description : '';
  const type = isJsonObject(parameter) ? parameter.type : undefined;
  // References to earlier outputs are strings, so every parameter also accepts a string.
  const referenceNote = 'A literal value, or a reference "$label.field$" to an earlier call\'s output.';
  const withNote = description ? `${description}. ${referenceNote}` : referenceNote;
  if (typeof type === 'string') {
    if (/^list|array/i.test(type)) {
      const items = isJsonObject(parameter) && isJsonObject(parameter.items) ? parameter.items : (/float|int|number/.test(type) ? { type: 'number' } : {});
      return { type: ['array', 'string'], items, description: withNote };
    }
    if (/int|float|number/i.test(type)) return { type: ['number', 'string'], description: withNote };
    if (/^(string|str)$/i.test(type)) return { type: 'string', description: withNote };
    if (/^(boolean|bool)$/i.test(type)) return { type: ['boolean', 'string'], description: withNote };
  }
  return { description: withNote };
}

/** The tool as native function-calling specs show it (calls and react modes). */
export function toToolSpec(tool: NestfulTool): ToolSpec {
  const properties: JsonObject = {};
  for (const [name, parameter] of Object.entries(tool.parameters)) properties[name] = parameterSchema(parameter);
  const required = Object.entries(tool.parameters)
    .filter(([, parameter]) => !(isJsonObject(parameter) && parameter.required === false))
    .map(([name]) => name);
  const outputs = Object.keys(tool.output_parameters);
  const outputNote = outputs.length > 0 ? ` Returns: ${outputs.join(', ')}.` : '';
  return {
    name: tool.name,
    description: `${tool.description}${outputNote}`,
    inputSchema: { type: 'object', properties, required },
  };
}

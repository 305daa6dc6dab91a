/**
 * A tool's inputSchema is what a provider receives as the function's parameters: one that is not a JSON Schema
 * (`"type": "objectt"`, `"minimum": "x"`) is refused by the provider on every request, so every episode would end in
 * an infrastructure error. Tasks read from a file (hand-edited, or written by another tool) are checked against the
 * JSON Schema meta-schema when read; tasks a suite makes are right by construction and are not.
 */
import { Ajv } from 'ajv';
import { formatFieldPath } from '../core/field-path.ts';
import type { ToolSpec } from '../core/tool.ts';

const ajv = new Ajv({ strict: false, logger: false });
/** Verdicts by schema text: tools repeat across the tasks of a file (NESTFUL's, a data set's APIs). Bounded. */
const verdicts = new Map<string, string | undefined>();
const verdictLimit = 10_000;

/** undefined when every tool's inputSchema is a JSON Schema for an object; else what is wrong, naming the field. */
export function toolSchemaProblem(tools: readonly ToolSpec[]): string | undefined {
  for (const [index, tool] of tools.entries()) {
    const problem = schemaProblem(tool.inputSchema);
    if (problem !== undefined) return `field 'tools[${index}].inputSchema${problem.path}' (tool '${tool.name}'): ${problem.message}`;
  }
  return undefined;
}

function schemaProblem(schema: Record<string, unknown>): { path: string; message: string } | undefined {
  if (schema.type !== undefined && schema.type !== 'object') {
    return { path: '.type', message: `is ${JSON.stringify(schema.type)}, but a tool's parameters are an object ("type": "object")` };
  }
  // A schema naming a meta-schema this checker does not hold is left to the provider.
  if (typeof schema.$schema === 'string' && ajv.getSchema(schema.$schema) === undefined) return undefined;
  const text = JSON.stringify(schema);
  if (verdicts.has(text)) {
    const message = verdicts.get(text);
    return message === undefined ? undefined : JSON.parse(message) as { path: string; message: string };
  }
  let problem: { path: string; message: string } | undefined;
  if (!ajv.validateSchema(schema)) {
    const error = ajv.errors?.[0];
    const path = (error?.instancePath ?? '').split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
    const field = formatFieldPath(path.map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment)));
    problem = { path: field === '' ? '' : (field.startsWith('[') ? field : `.${field}`), message: `not a JSON Schema: ${error?.message ?? 'invalid'}` };
  }
  if (verdicts.size >= verdictLimit) verdicts.clear();
  verdicts.set(text, problem === undefined ? undefined : JSON.stringify(problem));
  return problem;
}

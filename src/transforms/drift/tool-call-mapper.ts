/**
 * Serves calls against drifted tools the way the new API version would: a call to a moved tool
 * gets a 301 naming the new name, an unknown tool a 404, arguments that the new schema rejects
 * (ajv, plus unknown top-level parameters: the server is strict) a 400 naming each parameter. A
 * call the new schema accepts is mapped onto the original tool, so the original implementation
 * runs and semantics hold. `toNew` maps an old (gold) call forward, for oracles.
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonObject } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { CallRejection } from './call-rejection.ts';
import { badRequest, describeSchemaError, movedPermanently, notFound } from './call-rejection.ts';
import { mapArgumentsToNew, mapArgumentsToOld } from './argument-mapping.ts';
import type { EndpointChangeLog } from './drift-model.ts';
import type { DriftedTools } from './tool-drift.ts';

// ajv-formats is CommonJS with a `default` export; under NodeNext the namespace object is what we get.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

export type PlainCall = { name: string; arguments: JsonObject };

export type ServedCall = { ok: true; call: PlainCall } | { ok: false; rejection: CallRejection };

export type ToolCallMapper = {
  /** Validates a call under the new interface; when accepted, the equivalent call under the old one. */
  serve(call: PlainCall): ServedCall;
  /** An old-interface call (e.g. gold) as it reads under the new interface; undefined for an unknown tool. */
  toNew(call: PlainCall): PlainCall | undefined;
  /** A new-interface call mapped back without validation; undefined for an unknown tool. */
  toOld(call: PlainCall): PlainCall | undefined;
};

export function createToolCallMapper(drifted: Pick<DriftedTools, 'tools' | 'log'>): ToolCallMapper {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  const byNewName = new Map<string, { tool: ToolSpec; log: EndpointChangeLog }>();
  const byOldName = new Map<string, EndpointChangeLog>();
  drifted.log.forEach((log, index) => {
    byNewName.set(log.to, { tool: drifted.tools[index], log });
    byOldName.set(log.from, log);
  });
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (tool: ToolSpec): ValidateFunction => {
    let validate = validators.get(tool.name);
    if (!validate) {
      validate = ajv.compile(tool.inputSchema);
      validators.set(tool.name, validate);
    }
    return validate;
  };
  const toOld = (call: PlainCall): PlainCall | undefined => {
    const entry = byNewName.get(call.name);
    if (!entry) return undefined;
    return { name: entry.log.from, arguments: mapArgumentsToOld({ argument: call.arguments }, entry.log.changes).argument ?? {} };
  };
  return {
    serve(call) {
      const entry = byNewName.get(call.name);
      if (!entry) {
        const moved = byOldName.get(call.name);
        return { ok: false, rejection: moved && moved.to !== moved.from ? movedPermanently(moved.from, moved.to) : notFound(call.name) };
      }
      const problems = argumentProblems(entry.tool, call.arguments, validatorFor(entry.tool));
      if (problems.length > 0) return { ok: false, rejection: badRequest(call.name, problems) };
      return { ok: true, call: toOld(call) as PlainCall };
    },
    toNew(call) {
      const log = byOldName.get(call.name);
      if (!log) return undefined;
      return { name: log.to, arguments: mapArgumentsToNew({ argument: call.arguments }, log.changes).argument ?? {} };
    },
    toOld,
  };
}

function argumentProblems(tool: ToolSpec, arguments_: JsonObject, validate: ValidateFunction): string[] {
  const problems: string[] = [];
  const properties = isJsonObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  const openEnded = tool.inputSchema.additionalProperties !== undefined && tool.inputSchema.additionalProperties !== false;
  if (!openEnded) {
    for (const name of Object.keys(arguments_)) if (!Object.hasOwn(properties, name)) problems.push(`unknown parameter '${name}'`);
  }
  if (!validate(arguments_)) {
    for (const error of validate.errors ?? []) {
      const line = describeSchemaError(error);
      if (!problems.includes(line)) problems.push(line);
    }
  }
  return problems;
}

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
import { canonicalJson, isJsonObject } from '../../core/json.ts';
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

/**
 * Validators are shared by every mapper, by schema text: a mapper is made per episode, and building an ajv with its
 * formats (~0.2 ms) and compiling each called tool's schema (~0.3 ms) was a third of a drifted NESTFUL run, whose tasks
 * draw their tools from one pool. Bounded, least recently used first out, and removed from the ajv as they leave it, so
 * 100,000 tasks with fresh schemas (funcgen's) do not pile up. Made at the first drifted call: a run without drift
 * never holds it.
 */
let sharedAjv: Ajv | undefined;
const validators = new Map<string, { schema: JsonObject; validate: ValidateFunction }>();
const validatorLimit = 2048;

function createAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  return ajv;
}

function validatorFor(schema: JsonObject): ValidateFunction {
  const key = canonicalJson(schema);
  const known = validators.get(key);
  if (known) {
    validators.delete(key);
    validators.set(key, known);
    return known.validate;
  }
  let validate: ValidateFunction;
  try {
    sharedAjv ??= createAjv();
    validate = sharedAjv.compile(schema);
  } catch {
    // A schema the shared ajv cannot hold beside another (two with one $id): compiled alone, as each mapper once did.
    return createAjv().compile(schema);
  }
  validators.set(key, { schema, validate });
  if (validators.size > validatorLimit) {
    const [oldestKey, oldest] = validators.entries().next().value as [string, { schema: JsonObject }];
    validators.delete(oldestKey);
    sharedAjv?.removeSchema(oldest.schema);
  }
  return validate;
}

export function createToolCallMapper(drifted: Pick<DriftedTools, 'tools' | 'log'>): ToolCallMapper {
  const byNewName = new Map<string, { tool: ToolSpec; log: EndpointChangeLog }>();
  const byOldName = new Map<string, EndpointChangeLog>();
  drifted.log.forEach((log, index) => {
    byNewName.set(log.to, { tool: drifted.tools[index], log });
    byOldName.set(log.from, log);
  });
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
      const problems = argumentProblems(entry.tool, call.arguments, validatorFor(entry.tool.inputSchema));
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

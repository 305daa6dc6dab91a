/**
 * JSON-Schema validation of values against an OpenAPI document's schemas with ajv. ajv compiles
 * from the bundled document (`$ref`s kept), because a dereferenced circular schema graph overflows
 * its compiler; OpenAPI keywords ajv does not know (example, xml, discriminator...) are ignored
 * (strict: false).
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonObject, JsonValue } from '../core/json.ts';
import { isJsonObject } from '../core/json.ts';
import type { OpenApiDocument } from './document.ts';

// ajv-formats is CommonJS with a `default` export; under NodeNext the namespace object is what we get.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

export type SchemaCheck = { valid: true } | { valid: false; errors: string[] };

export type SchemaValidator = {
  /** Validates a value against the schema at `pointer` (an encoded JSON pointer into the bundled document). */
  check(pointer: string, value: JsonValue): SchemaCheck;
};

const documentId = 'openapi';

export function createSchemaValidator(document: OpenApiDocument): SchemaValidator {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, validateFormats: true, logger: false });
  addFormats(ajv);
  // OpenAPI's own format names that ajv-formats lacks are plain strings/numbers to us.
  for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password', 'google-datetime', 'google-fieldmask', 'google-duration']) {
    ajv.addFormat(format, true);
  }
  ajv.addSchema({ ...(draft7Schemas(document.bundled) as JsonObject), $id: documentId });
  const compiled = new Map<string, ValidateFunction>();
  return {
    check(pointer, value) {
      let validate = compiled.get(pointer);
      if (!validate) {
        try {
          validate = ajv.compile({ $ref: `${documentId}${pointer}` });
        } catch (error) {
          return { valid: false, errors: [`schema at ${pointer} cannot be compiled: ${(error as Error).message}`] };
        }
        compiled.set(pointer, validate);
      }
      if (validate(value)) return { valid: true };
      const errors = validate.errors ?? [];
      return { valid: false, errors: errors.map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`) };
    },
  };
}

/**
 * OpenAPI 3.0 writes exclusive bounds as booleans next to minimum/maximum (JSON Schema draft 4);
 * ajv speaks draft 7, where they are numbers. A converted copy keeps the rest as is.
 */
function draft7Schemas(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(draft7Schemas);
  if (!isJsonObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, child] of Object.entries(value)) result[key] = draft7Schemas(child);
  for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof result[flag] !== 'boolean') continue;
    if (result[flag] === true && typeof result[bound] === 'number') {
      result[flag] = result[bound];
      delete result[bound];
    } else {
      delete result[flag];
    }
  }
  return result;
}

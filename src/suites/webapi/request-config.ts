/**
 * The request configuration WAPIIBench compares: what an axios call sends, reduced to URL (no query),
 * method, and the arguments per location. `path_params` is derived from the URL and a spec path.
 */
import { z } from 'zod';
import type { JsonObject, JsonValue } from '../../core/json.ts';

/** Argument locations of a request config, named as the reference names them. */
export type ConfigField = 'headers' | 'params' | 'path_params' | 'data';
export const configFields: readonly ConfigField[] = ['headers', 'params', 'path_params', 'data'];

/** Headers that axios always sets (Accept) or sets for bodies (Content-Type): never counted as arguments. */
export const specialHeaders: readonly string[] = ['Accept', 'Content-Type'];

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() => z.union([
  z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValueSchema), z.record(z.string(), jsonValueSchema),
]));

export const requestConfigSchema = z.object({
  url: z.string().min(1),
  method: z.string().min(1).transform((method) => method.toLowerCase()),
  headers: z.record(z.string(), jsonValueSchema).optional(),
  params: z.record(z.string(), jsonValueSchema).optional(),
  data: z.record(z.string(), jsonValueSchema).optional(),
});

export type RequestConfig = {
  url: string;
  method: string;
  headers?: JsonObject;
  params?: JsonObject;
  data?: JsonObject;
};

/** Maps a config field to the OpenAPI argument location the legality check uses. */
export function fieldLocation(field: ConfigField): 'header' | 'query' | 'path' | 'body' {
  switch (field) {
    case 'headers':
      return 'header';
    case 'params':
      return 'query';
    case 'path_params':
      return 'path';
    case 'data':
      return 'body';
  }
}

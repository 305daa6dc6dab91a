/**
 * The virtual API's persistent response cache. StableToolBench keys entries by Python's
 * `str(tool_input)`, so `{a:1, b:2}` and `{b:2, a:1}` miss each other; here the key is the
 * canonical JSON of the arguments (sorted keys), one file per API:
 * `<directory>/<category>/<tool>/<api>.json`, one `{ canonicalArguments: {error, response} }` per line, each new answer
 * appended (core/json-map-file.ts); a StableToolBench cache file (one object) is read as it is.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { JsonMapFile } from '../../core/json-map-file.ts';
import { openJsonMapFile } from '../../core/json-map-file.ts';
import type { JsonObject } from '../../core/json.ts';
import { canonicalJson } from '../../core/json.ts';
import { standardizeCategory, standardizeName } from './tool-naming.ts';

export type VirtualResponse = { error: string; response: string };
export type ApiAddress = { category: string; tool: string; api: string };

const responseSchema = z.object({ error: z.string(), response: z.string() });

export interface ResponseCache {
  get(address: ApiAddress, arguments_: JsonObject): VirtualResponse | undefined;
  set(address: ApiAddress, arguments_: JsonObject, response: VirtualResponse): void;
}

export function cacheKey(arguments_: JsonObject): string {
  return canonicalJson(arguments_);
}

export function createMemoryResponseCache(): ResponseCache {
  const entries = new Map<string, VirtualResponse>();
  const key = (address: ApiAddress, arguments_: JsonObject): string => canonicalJson([address.category, address.tool, address.api, cacheKey(arguments_)]);
  return {
    get: (address, arguments_) => entries.get(key(address, arguments_)),
    set: (address, arguments_, response) => void entries.set(key(address, arguments_), response),
  };
}

export function createFileResponseCache(directory: string): ResponseCache {
  const files = new Map<string, JsonMapFile<VirtualResponse>>();
  const fileOf = (address: ApiAddress): JsonMapFile<VirtualResponse> => {
    const path = join(directory, standardizeCategory(address.category), standardizeName(address.tool), `${standardizeName(address.api)}.json`);
    let file = files.get(path);
    if (file === undefined) {
      file = openJsonMapFile(path, {
        isValue: (value): value is VirtualResponse => responseSchema.safeParse(value).success,
        lineShape: '{arguments: {error, response}}',
        damaged: (reason) => new ConfigError('input.invalid', `response cache file '${path}' cannot be read: ${reason}`, {
          fix: 'delete the file: the responses it held are made again (by the simulator model, if one is set, whose answers may differ)',
        }),
        unusable: (reason) => new ConfigError('input.unreadable', `response cache file '${path}' cannot be used: ${reason}`, {
          fix: `make ${directory} a folder you can read and write, or pass another with --set cache=<folder>`,
        }),
      });
      files.set(path, file);
    }
    return file;
  };
  return {
    get: (address, arguments_) => fileOf(address).get(cacheKey(arguments_)),
    set: (address, arguments_, response) => fileOf(address).set(cacheKey(arguments_), response),
  };
}

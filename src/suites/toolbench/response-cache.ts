/**
 * The virtual API's persistent response cache. StableToolBench keys entries by Python's
 * `str(tool_input)`, so `{a:1, b:2}` and `{b:2, a:1}` miss each other; here the key is the
 * canonical JSON of the arguments (sorted keys), one file per API:
 * `<directory>/<category>/<tool>/<api>.json` = `{ canonicalArguments: {error, response} }`.
 * Files are rewritten atomically, so a killed run never leaves a torn cache.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { fileProblem } from '../../core/file-problem.ts';
import type { JsonObject } from '../../core/json.ts';
import { canonicalJson } from '../../core/json.ts';
import { standardizeCategory, standardizeName } from './tool-naming.ts';

export type VirtualResponse = { error: string; response: string };
export type ApiAddress = { category: string; tool: string; api: string };

const fileSchema = z.record(z.string(), z.object({ error: z.string(), response: z.string() }));

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

/** A cache file as it was written (by ToolForge or StableToolBench), or a ConfigError that names it and says why. */
function readCacheFile(path: string): Record<string, VirtualResponse> {
  const damaged = (reason: string): ConfigError => new ConfigError('input.invalid', `response cache file '${path}' cannot be read: ${reason}`, {
    fix: 'delete the file: the responses it held are made again (by the simulator model, if one is set, whose answers may differ)',
  });
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw damaged(error instanceof SyntaxError ? `it is not JSON (${error.message})` : fileProblem(path, error));
  }
  const parsed = fileSchema.safeParse(value);
  if (!parsed.success) throw damaged('it is not {arguments: {error, response}}');
  return parsed.data;
}

export function createFileResponseCache(directory: string): ResponseCache {
  const files = new Map<string, Record<string, VirtualResponse>>();
  const pathOf = (address: ApiAddress): string => join(directory, standardizeCategory(address.category), standardizeName(address.tool), `${standardizeName(address.api)}.json`);
  const load = (path: string): Record<string, VirtualResponse> => {
    let entries = files.get(path);
    if (!entries) {
      entries = existsSync(path) ? readCacheFile(path) : {};
      files.set(path, entries);
    }
    return entries;
  };
  return {
    get(address, arguments_) {
      const entries = load(pathOf(address));
      const key = cacheKey(arguments_);
      return Object.hasOwn(entries, key) ? entries[key] : undefined;
    },
    set(address, arguments_, response) {
      const path = pathOf(address);
      const entries = load(path);
      entries[cacheKey(arguments_)] = response;
      mkdirSync(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, `${canonicalJson(entries, 1)}\n`);
      renameSync(temporary, path);
    },
  };
}

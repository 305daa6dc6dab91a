/**
 * Imports WAPIIBench task files: the combined list (`data/synthetic/all/test_data_final.json`,
 * items `{api, index, task, config, checks, vetted}`) or a per-API file (`{samples: [{task, config}],
 * api, model}`, where the index is the position). Each `api` maps to its OpenAPI spec: `--set spec=`
 * (one API), `--set specs=<dir>/<api>.yaml`, or `openapi/real_world_specs/<api>.yaml` of the
 * WAPIIBench folder that holds the file (found by walking up from it).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { linesInsteadOfJsonDocument, otherFileKind } from '../../core/file-kind.ts';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import type { RequestConfig } from './request-config.ts';
import { requestConfigSchema } from './request-config.ts';
import { readTextFileOr } from '../../core/read-text-file.ts';
import type { JsonListFileErrors } from '../../core/json-list-file.ts';
import { jsonListFileItems, startsWithJsonList } from '../../core/json-list-file.ts';
import { fileProblem } from '../../core/file-problem.ts';
import { formatFieldPath } from '../../core/field-path.ts';

export type WapiibenchSample = {
  api: string;
  index: number;
  task: string;
  config: RequestConfig;
  /** The data's own cross-check verdict ('OK' or what the spec lacks). */
  checks: string;
  /** The OpenAPI spec file of the API. */
  specPath: string;
};

/** The four APIs of the paper and the names the prompt uses for them. */
export const wapiibenchApiNames: Readonly<Record<string, string>> = {
  asana: 'Asana',
  google_calendar_v3: 'Google Calendar',
  google_sheet_v4: 'Google Sheets',
  slack: 'Slack Web',
};

const combinedItemSchema = z.object({
  api: z.string().min(1),
  index: z.number().int().nonnegative(),
  task: z.string().min(1),
  config: requestConfigSchema,
  checks: z.string().optional(),
  vetted: z.boolean().optional(),
});
const perApiSchema = z.object({
  api: z.string().min(1),
  model: z.string().optional(),
  samples: z.array(z.object({ task: z.string().min(1), config: requestConfigSchema })),
});

export type SpecLocation = { spec?: string; specs?: string };

export function importWapiibenchFile(path: string, location: SpecLocation = {}): WapiibenchSample[] {
  return [...streamWapiibenchFile(path, location)];
}

const listFix = 'use the combined list ({api, index, task, config}) or a per-API file ({api, samples: [{task, config}]})';

/**
 * The file's samples one at a time, from sample `skip` on. A combined list is read item by item, so a large task file
 * is never held whole, and each item is checked when it is reached (a bad item fails after the good ones before
 * it). A per-API file is one object and is read whole.
 */
export function* streamWapiibenchFile(path: string, location: SpecLocation = {}, skip = 0): Generator<WapiibenchSample> {
  const specPaths = new Map<string, string>();
  const withSpec = (item: Omit<WapiibenchSample, 'specPath'>): WapiibenchSample => {
    let specPath = specPaths.get(item.api);
    if (!specPath) {
      specPath = resolveSpecPath(item.api, path, location);
      specPaths.set(item.api, specPath);
    }
    return { ...item, specPath };
  };
  const errors: JsonListFileErrors = {
    notAList: (reason) => new ConfigError('input.invalid', `WAPIIBench file '${path}': not a JSON list of tasks (${reason})`, { fix: listFix }),
    unreadable: (error) => unreadable(path, error),
  };
  if (startsWithJsonList(path, errors)) {
    for (const { index: position, text } of jsonListFileItems(path, errors)) {
      if (position < skip) continue;
      let value: unknown;
      try {
        value = JSON.parse(text) as unknown;
      } catch (error) {
        throw new ConfigError('input.invalid', `WAPIIBench file '${path}', item ${position}: not JSON (${errorMessage(error)})`, { fix: listFix });
      }
      const parsed = combinedItemSchema.safeParse(value);
      if (!parsed.success) throw invalidOrOtherKind(path, `item ${position}`, parsed.error, position === skip ? value : undefined);
      yield withSpec({ api: parsed.data.api, index: parsed.data.index, task: parsed.data.task, config: parsed.data.config, checks: parsed.data.checks ?? 'OK' });
    }
    return;
  }
  let raw: unknown;
  const text = readTextFileOr(path, (error) => unreadable(path, error));
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const lines = linesInsteadOfJsonDocument(path, text, 'wapiibench-data', 'a WAPIIBench task file');
    if (lines) throw new ConfigError('input.invalid', `WAPIIBench file '${path}': ${lines.problem}`, { fix: lines.fix });
    throw unreadable(path, error);
  }
  const parsed = perApiSchema.safeParse(raw);
  if (!parsed.success) throw invalidOrOtherKind(path, 'file', parsed.error, raw);
  for (const [index, sample] of parsed.data.samples.entries()) {
    if (index >= skip) yield withSpec({ api: parsed.data.api, index, task: sample.task, config: sample.config, checks: 'OK' });
  }
}

function unreadable(path: string, error: unknown): ConfigError {
  return new ConfigError('input.unreadable', `cannot read WAPIIBench file '${path}': ${fileProblem(path, error)}`, {
    fix: '--set data=<a WAPIIBench test_data JSON file>',
  });
}

/** A first item that is another kind of file's line (a tasks file, NESTFUL data...) is named for what it is. */
function invalidOrOtherKind(path: string, where: string, error: z.ZodError, first: unknown): ConfigError {
  const other = first === undefined ? undefined : otherFileKind(path, first, 'wapiibench-data', 'a WAPIIBench task file');
  if (other) return new ConfigError('input.invalid', `WAPIIBench file '${path}', ${where}: ${other.problem}`, { fix: other.fix });
  return invalid(path, where, error);
}

function invalid(path: string, where: string, error: z.ZodError): ConfigError {
  const issue = error.issues[0];
  const field = formatFieldPath(issue?.path ?? []) || '(root)';
  return new ConfigError('input.invalid', `WAPIIBench file '${path}', ${where}: field '${field}': ${issue?.message ?? 'invalid'}`, {
    fix: listFix,
  });
}

function resolveSpecPath(api: string, dataPath: string, location: SpecLocation): string {
  if (location.spec) {
    if (!existsSync(location.spec)) throw missingSpec(api, location.spec, '--set spec=<an existing OpenAPI file>');
    return resolve(location.spec);
  }
  if (location.specs) {
    const candidates = ['yaml', 'yml', 'json'].map((extension) => join(location.specs ?? '', `${api}.${extension}`));
    const found = candidates.find((candidate) => existsSync(candidate));
    if (!found) throw missingSpec(api, candidates[0], `put ${api}.yaml into --set specs=<dir>`);
    return resolve(found);
  }
  for (let directory = dirname(resolve(dataPath)); ; directory = dirname(directory)) {
    const candidate = join(directory, 'openapi', 'real_world_specs', `${api}.yaml`);
    if (existsSync(candidate)) return candidate;
    if (dirname(directory) === directory) break;
  }
  throw missingSpec(api, `openapi/real_world_specs/${api}.yaml above '${dataPath}'`, `--set specs=<dir holding ${api}.yaml> or --set spec=<file>`);
}

function missingSpec(api: string, where: string, fix: string): ConfigError {
  return new ConfigError('input.unreadable', `no OpenAPI spec for api '${api}' (looked for ${where})`, { fix });
}

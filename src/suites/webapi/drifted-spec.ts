/**
 * The OpenAPI document a webapi task is judged against. A task made by `--transform drift` carries
 * `expected.drift` (operator, seed, probability): its spec file drifted that way is the new API, the
 * one URL matching and argument legality are judged against (the model wrote from memory of the old
 * one, which its prompt still shows). Drift is deterministic, so the drifted document is recomputed
 * from the file rather than stored with every task; each file is parsed once per process and each
 * drift of it made and loaded once.
 */
import { parse as parseYaml } from 'yaml';
import { locateDataset, missingDataError } from '../../core/data-location.ts';
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { OpenApiDocument } from '../../openapi/document.ts';
import { loadOpenApiObject } from '../../openapi/load-openapi.ts';
import type { DriftedOpenApi } from '../../transforms/drift/openapi-drift.ts';
import { driftOpenApi } from '../../transforms/drift/openapi-drift.ts';
import { resolvePortablePath } from '../../core/portable-path.ts';
import { loadSpecReference } from './spec-reference.ts';
import type { WebapiDrift, WebapiExpected } from './webapi-task.ts';
import { readTextFileSync } from '../../core/read-text-file.ts';
import { fileProblem } from '../../core/file-problem.ts';

const rawDocuments = new Map<string, JsonObject>();

/** The spec file as parsed YAML/JSON (`$ref`s as written), what driftOpenApi reads. */
export function readRawSpec(reference: string): JsonObject {
  const cached = rawDocuments.get(reference);
  if (cached) return cached;
  const name = reference.startsWith('shared:') ? reference.slice('shared:'.length).split('/')[0] : undefined;
  if (name && !locateDataset(name)) throw missingDataError(name, `the task's OpenAPI spec '${reference}'`);
  const path = resolvePortablePath(reference);
  let parsed: unknown;
  try {
    parsed = parseYaml(readTextFileSync(path), { maxAliasCount: -1 });
  } catch (error) {
    // A readable file that is not text (compressed) says so itself.
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('input.unreadable', `cannot read OpenAPI file '${path}': ${fileProblem(path, error)}`, { fix: 'pass the path of an existing OpenAPI 3 YAML or JSON file' });
  }
  if (!isJsonObject(parsed)) throw new ConfigError('input.invalid', `OpenAPI file '${path}' does not hold an object`, { fix: 'the file must hold one OpenAPI 3 document' });
  rawDocuments.set(reference, parsed);
  return parsed;
}

/** The server URLs the spec file declares (what request URLs of the old API start with). */
export function rawServerUrls(raw: JsonObject): string[] {
  return (Array.isArray(raw.servers) ? raw.servers : []).flatMap((server) => (isJsonObject(server) && typeof server.url === 'string' ? [server.url] : []));
}

// A few documents at a time: a run drifts each API once, but a long-lived process may see many seeds.
const keep = 8;
const drifts = new Map<string, DriftedOpenApi>();
const judged = new Map<string, Promise<OpenApiDocument>>();

function remember<T>(cache: Map<string, T>, key: string, value: T): T {
  cache.set(key, value);
  if (cache.size > keep) cache.delete(cache.keys().next().value as string);
  return value;
}

function driftKey(reference: string, drift: WebapiDrift): string {
  return `${reference}\u0000${drift.operator}\u0000${drift.seed}\u0000${drift.probability}`;
}

/** The spec file drifted as `drift` says (same bytes every time). */
export function driftSpecReference(reference: string, drift: WebapiDrift): DriftedOpenApi {
  const key = driftKey(reference, drift);
  const cached = drifts.get(key);
  if (cached) return cached;
  const raw = readRawSpec(reference);
  if (/"\$ref"\s*:\s*"(?!#)/.test(JSON.stringify(raw))) {
    // The drifted document is judged from memory; a reference to another file would be read undrifted.
    throw new ConfigError('config.invalid', `OpenAPI file '${reference}' refers to other files: schema drift needs a self-contained spec`, { fix: 'bundle the spec into one file (e.g. redocly bundle) and pass that' });
  }
  return remember(drifts, key, driftOpenApi(raw, drift.operator, drift.seed, { probability: drift.probability }));
}

/** The document a task's requests are judged against: its spec, drifted when the task was made by `--transform drift`. */
export function loadJudgedSpec(expected: Pick<WebapiExpected, 'spec' | 'drift'>): Promise<OpenApiDocument> {
  const { spec, drift } = expected;
  if (!drift) return loadSpecReference(spec);
  const key = driftKey(spec, drift);
  const cached = judged.get(key);
  if (cached) return cached;
  const loading = Promise.resolve().then(() => loadOpenApiObject(driftSpecReference(spec, drift).document, `${resolvePortablePath(spec)} (drift:${drift.operator}, seed ${drift.seed})`));
  loading.catch(() => judged.delete(key));
  return remember(judged, key, loading);
}

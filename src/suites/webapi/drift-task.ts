/**
 * Schema drift of a webapi task (`--transform drift`; issue 12): the model still gets the old prompt
 * (it writes from memory of the documented API), while the request is judged against the drifted
 * spec and the expected request mapped onto it (`toNew`): `expected.drift` names the drift and
 * `expected.config` becomes the new request, so builtin/oracle, which renders `expected.config`,
 * writes for the new API. One drift per spec file, as DynamicToolBench makes one new version of
 * each API: every task on that spec in a run is judged against the same new document. The change
 * log kept is the entry of the endpoint the task uses (the document's whole log follows from the
 * spec, operator, seed and probability).
 */
import { createHash } from 'node:crypto';
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import { canonicalJson } from '../../core/json.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import type { DriftOperatorId } from '../../transforms/drift/drift-operators.ts';
import { createRequestMapper } from '../../transforms/drift/request-mapper.ts';
import { driftSpecReference, rawServerUrls, readRawSpec } from './drifted-spec.ts';
import type { RequestConfig } from './request-config.ts';
import type { WebapiDrift, WebapiExpected } from './webapi-task.ts';
import { readWebapiExpected } from './webapi-task.ts';

export type WebapiDriftOptions = { operator: DriftOperatorId; probability: number; knobs: JsonObject; runSeed: number };

/** The drift seed of a spec in a run: from the run's seed, the knobs and the spec, not the task. */
export function webapiDriftSeed(runSeed: number, knobs: JsonObject, spec: string): number {
  return new Rng(deriveSeed(runSeed, 'transform', 'drift', canonicalJson(knobs), specIdentity(spec))).int(0, 2 ** 30 - 1);
}

const specIdentities = new Map<string, string>();

/**
 * A spec as the drift seed sees it, the same on every machine: a data set's spec by its portable reference
 * (`shared:wapiibench/...`), any other file by its content. Its absolute path would drift a user's own spec differently
 * in each checkout, so the same seed would make other tasks on another machine.
 */
function specIdentity(reference: string): string {
  if (reference.startsWith('shared:')) return reference;
  let identity = specIdentities.get(reference);
  if (identity === undefined) {
    identity = `sha256:${createHash('sha256').update(canonicalJson(readRawSpec(reference))).digest('hex')}`;
    specIdentities.set(reference, identity);
  }
  return identity;
}

export function driftWebapiTask(task: Task, options: WebapiDriftOptions): { task: Task; changes: JsonObject } {
  const expected = readWebapiExpected(task);
  if (expected.drift) {
    throw new ConfigError('config.invalid', `task '${task.id}' is already judged against a drifted spec`, { fix: 'apply --transform drift once' });
  }
  const drift: WebapiDrift = { operator: options.operator, seed: webapiDriftSeed(options.runSeed, options.knobs, expected.spec), probability: options.probability };
  const drifted = driftSpecReference(expected.spec, drift);
  const mapped = createRequestMapper(drifted, rawServerUrls(readRawSpec(expected.spec))).toNew(expected.config);
  if (!mapped.ok) {
    throw new ConfigError('input.invalid', `task '${task.id}': its expected request has no counterpart in the drifted spec: ${mapped.reason}`, {
      fix: `check that ${expected.config.method.toUpperCase()} ${expected.config.url} is an operation of ${expected.spec}`,
    });
  }
  const config = mapped.request as RequestConfig;
  const moved = config.url !== expected.config.url || config.method !== expected.config.method;
  if (moved && expected.setup === 'argument' && expected.endpoint === 'completions') {
    // The starter hands over the old method and URL and a completion can only continue it.
    throw new ConfigError('config.invalid', `task '${task.id}': under drift:${options.operator} its URL moves, but with setup=argument and endpoint=completions the starter fixes the old URL`, {
      fix: 'use --set setup=full or --set endpoint=chat, or a drift operator that keeps URLs (rename, type, default-flip, nest, required-swap)',
    });
  }
  const entry = drifted.log.find((candidate) => candidate.key === mapped.endpoint);
  const newExpected: WebapiExpected = { ...expected, config, drift };
  return {
    // Prompt, starter and query stay the old API's: that is what the model was documented.
    task: { ...task, expected: newExpected },
    changes: {
      target: 'openapi', ...drift, spec: expected.spec, servers: drifted.servers, log: entry ? [entry] : [],
      request: { from: expected.config, to: config },
    } as unknown as JsonObject,
  };
}

/**
 * The drift operators by id, and `all`, which composes them in the reference's order: URL /
 * endpoint evolution, then per parameter renaming, type drift and default flips, then nesting,
 * then the required/optional swaps. Each operator draws from its own stream derived from the seed,
 * the operator id and the endpoint's key, so adding an endpoint never changes another one's drift.
 */
import { seededStream } from '../seeded-stream.ts';
import { ConfigError } from '../../core/errors.ts';
import type { DriftChange, DriftEndpoint, DriftOperator } from './drift-model.ts';
import { defaultFlip } from './default-flip.ts';
import { endpointEvolution } from './endpoint-evolution.ts';
import { nestedObject } from './nested-object.ts';
import { createParameterRenaming } from './parameter-renaming.ts';
import { requiredOptionalSwap } from './required-optional-swap.ts';
import { semanticRenames } from './semantic-renames.ts';
import { typeDrift } from './type-drift.ts';

export const singleDriftOperatorIds = ['endpoint', 'rename', 'type', 'default-flip', 'nest', 'required-swap'] as const;
export type SingleDriftOperatorId = typeof singleDriftOperatorIds[number];
export const driftOperatorIds = [...singleDriftOperatorIds, 'all'] as const;
export type DriftOperatorId = typeof driftOperatorIds[number];

export type DriftOptions = {
  /** Probability of URL evolution, nesting and each swap (reference: 0.99). */
  probability?: number;
  /** The semantic rename map (default: DynamicToolBench's 48 entries). */
  renames?: Readonly<Record<string, string>>;
};

export const defaultDriftProbability = 0.99;

export function parseDriftOperatorId(text: string): DriftOperatorId {
  if ((driftOperatorIds as readonly string[]).includes(text)) return text as DriftOperatorId;
  throw new ConfigError('config.invalid', `unknown drift operator '${text}'`, { fix: `use one of: ${driftOperatorIds.join(', ')}` });
}

function operatorFor(id: SingleDriftOperatorId, options: DriftOptions): DriftOperator {
  switch (id) {
    case 'endpoint': return endpointEvolution;
    case 'rename': return createParameterRenaming(options.renames ?? semanticRenames);
    case 'type': return typeDrift;
    case 'default-flip': return defaultFlip;
    case 'nest': return nestedObject;
    case 'required-swap': return requiredOptionalSwap;
  }
}

/** Applies one operator (or all of them, in order) to one endpoint. */
export function driftEndpoint(
  endpoint: DriftEndpoint,
  id: DriftOperatorId,
  seed: number,
  options: DriftOptions & { takenNames?: { has(name: string): boolean } } = {},
): DriftEndpoint & { changes: DriftChange[] } {
  const probability = options.probability ?? defaultDriftProbability;
  if (!(probability >= 0 && probability <= 1)) {
    throw new ConfigError('config.invalid', `drift probability ${probability} is not in [0, 1]`, { fix: 'pass a probability between 0 and 1, e.g. 0.99' });
  }
  const steps: readonly SingleDriftOperatorId[] = id === 'all' ? singleDriftOperatorIds : [id];
  let current: DriftEndpoint = endpoint;
  const changes: DriftChange[] = [];
  for (const step of steps) {
    const rng = seededStream(seed, 'drift', step, endpoint.key);
    const result = operatorFor(step, options)(current, { rng, probability, takenNames: options.takenNames ?? new Set() });
    changes.push(...result.changes);
    const { changes: _changes, ...next } = result;
    current = next;
  }
  return { ...current, changes };
}

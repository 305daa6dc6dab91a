/**
 * The query perturbations by id. The deterministic ones rewrite a query from a seeded stream;
 * `paraphrase` needs a model (model-paraphrase.ts). Each rewrites the query string only.
 */
import { ConfigError } from '../../core/errors.ts';
import { seededStream } from '../seeded-stream.ts';
import { mixCase } from './case-mixing.ts';
import { addDistractorStory } from './distractor-story.ts';
import { addPunctuationNoise } from './punctuation-noise.ts';

export const queryPerturbationIds = ['distractor', 'case-mix', 'punctuation', 'paraphrase'] as const;
export type QueryPerturbationId = typeof queryPerturbationIds[number];
export type SeededPerturbationId = Exclude<QueryPerturbationId, 'paraphrase'>;

export function parseQueryPerturbationId(text: string): QueryPerturbationId {
  if ((queryPerturbationIds as readonly string[]).includes(text)) return text as QueryPerturbationId;
  throw new ConfigError('config.invalid', `unknown query perturbation '${text}'`, { fix: `use one of: ${queryPerturbationIds.join(', ')}` });
}

/**
 * Rewrites one query. The stream is derived from the seed, the perturbation and `key` (the task
 * id), so each task's noise is independent of the others and of their order. `names` (the task's tool and parameter
 * names) keep their case.
 */
export function perturbQuery(id: SeededPerturbationId, query: string, seed: number, key: string, names: ReadonlySet<string> = new Set()): string {
  const rng = seededStream(seed, 'perturb', id, key);
  switch (id) {
    case 'distractor': return addDistractorStory(query);
    case 'case-mix': return mixCase(query, rng, names);
    case 'punctuation': return addPunctuationNoise(query, rng);
  }
}

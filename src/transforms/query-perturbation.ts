/**
 * perturb: DynamicToolBench's query perturbations as a transform. It rewrites the user's request
 * (`task.query`, wherever it appears in the prompt or starter code) and nothing else: tools,
 * environment and gold are the source task's, so built-in models need no adapter and every mode
 * is kept. The noise is drawn from the run's seed, the perturbation and the source task id.
 * `paraphrase` needs a model and is not offered here (see README).
 */
import { ConfigError } from '../core/errors.ts';
import type { JsonObject } from '../core/json.ts';
import type { Rng } from '../core/rng.ts';
import type { Task } from '../core/task.ts';
import type { SeededPerturbationId } from './perturb/index.ts';
import { perturbQuery } from './perturb/index.ts';
import { replaceQuery } from './query.ts';
import type { TaskTransform } from './spec.ts';

export const seededPerturbationIds: readonly SeededPerturbationId[] = ['distractor', 'case-mix', 'punctuation'];

export const queryPerturbationTransform: TaskTransform = {
  id: 'perturb',
  version: '1',
  description: 'rewrites the user request only: a distractor story, case mixing or punctuation noise (DynamicToolBench)',
  knobs: [{ type: 'enum', name: 'kind', description: 'which perturbation', default: 'distractor', values: seededPerturbationIds }],
  apply(task: Task, rng: Rng, knobs: JsonObject) {
    const kind = String(knobs.kind) as SeededPerturbationId;
    if (!seededPerturbationIds.includes(kind)) {
      throw new ConfigError('config.invalid', `perturb: unknown kind '${kind}'`, { fix: `use one of: ${seededPerturbationIds.join(', ')}` });
    }
    const seed = rng.int(0, 2 ** 30 - 1);
    const from = task.query ?? '';
    const to = perturbQuery(kind, from, seed, task.id);
    return { task: replaceQuery(task, to), changes: { kind, seed, from, to } };
  },
};

/**
 * perturb: DynamicToolBench's query perturbations as a transform. It rewrites the user's request
 * (`task.query`, wherever it appears in the prompt or starter code) and nothing else: tools,
 * environment and gold are the source task's, so built-in models need no adapter and every mode
 * is kept. The seeded kinds draw their noise from the run's seed, the perturbation and the source
 * task id. `paraphrase` asks the `--phrasing-model` in `prepare` (one request per distinct query,
 * cached by a hash of the model and the exact request, so a rerun asks nothing and gets identical
 * bytes); `apply` then only writes the answer in.
 */
import { ConfigError } from '../core/errors.ts';
import type { JsonObject } from '../core/json.ts';
import type { Rng } from '../core/rng.ts';
import type { Task } from '../core/task.ts';
import { listSuites } from '../suites/registry.ts';
import type { QueryPerturbationId, SeededPerturbationId } from './perturb/index.ts';
import { createMemoryParaphraseCache, paraphraseQuery, perturbQuery, queryPerturbationIds } from './perturb/index.ts';
import { replaceQuery } from './query.ts';
import type { TaskTransform, TransformContext, TransformOutput, TransformResources } from './spec.ts';

export const seededPerturbationIds: readonly SeededPerturbationId[] = ['distractor', 'case-mix', 'punctuation'];

/** Without a cache given, paraphrases are kept for the process (a file cache beside the results database in the CLI). */
const processCache = createMemoryParaphraseCache();

const needsModel = (): ConfigError => new ConfigError('config.invalid', 'perturb:paraphrase needs a model to paraphrase with', {
  fix: 'pass --phrasing-model <ref> (a provider model, e.g. openai/gpt-4.1-mini; --phrasing-base-url for an OpenAI-compatible server)',
});

export const queryPerturbationTransform: TaskTransform = {
  id: 'perturb',
  // 4: a suite's own verbatim names are kept too (funcgen's target variable was case-mixed into another name).
  version: '4',
  description: 'rewrites the user request only: a distractor story, case mixing, punctuation noise or a paraphrase by --phrasing-model (DynamicToolBench)',
  knobs: [{ type: 'enum', name: 'kind', description: 'which perturbation (paraphrase asks the --phrasing-model)', default: 'distractor', values: queryPerturbationIds }],
  needsPhrasingModel: (knobs: JsonObject): boolean => knobs.kind === 'paraphrase',
  async prepare(tasks: readonly Task[], knobs: JsonObject, resources: TransformResources): Promise<JsonObject[] | undefined> {
    if (knobs.kind !== 'paraphrase') return undefined;
    const source = resources.phrasingModel;
    if (!source) throw needsModel();
    const cache = resources.paraphraseCache ?? processCache;
    const prepared: JsonObject[] = [];
    // One at a time, in task order: a rerun finds every answer in the cache and sends nothing.
    for (const task of tasks) {
      resources.signal?.throwIfAborted();
      const model = source.forEpisode({ task, trial: 0, mode: task.modes[0] });
      const paraphrase = await paraphraseQuery(task.query ?? '', { model, cache, ...(resources.signal ? { signal: resources.signal } : {}) });
      prepared.push({ model: `${model.provider}/${model.modelId}`, paraphrase });
    }
    return prepared;
  },
  apply(task: Task, rng: Rng, knobs: JsonObject, context: TransformContext): TransformOutput {
    const kind = String(knobs.kind) as QueryPerturbationId;
    const from = task.query ?? '';
    if (kind === 'paraphrase') {
      const prepared = context.prepared;
      if (typeof prepared?.paraphrase !== 'string' || typeof prepared.model !== 'string') throw needsModel();
      return { task: replaceQuery(task, prepared.paraphrase), changes: { kind, model: prepared.model, from, to: prepared.paraphrase } };
    }
    if (!seededPerturbationIds.includes(kind)) {
      throw new ConfigError('config.invalid', `perturb: unknown kind '${kind}'`, { fix: `use one of: ${queryPerturbationIds.join(', ')}` });
    }
    const seed = rng.int(0, 2 ** 30 - 1);
    const to = perturbQuery(kind, from, seed, task.id, taskNames(task));
    return { task: replaceQuery(task, to), changes: { kind, seed, from, to } };
  },
};

/** The names a request may quote that the model must use exactly: the task's tools and their parameters. */
/** The names a perturbation keeps: the task's tools, their parameters, and what its suite names (Suite.verbatimNames). */
function taskNames(task: Task): Set<string> {
  const names = new Set<string>(suiteVerbatimNames(task));
  for (const tool of task.tools) {
    names.add(tool.name);
    const properties = tool.inputSchema.properties;
    if (typeof properties === 'object' && properties !== null) for (const name of Object.keys(properties)) names.add(name);
  }
  return names;
}

/** A registered suite's names for the task; none for a task of a suite this process does not know. */
function suiteVerbatimNames(task: Task): readonly string[] {
  const suite = listSuites().find((candidate) => candidate.id === task.suite?.id);
  return suite?.verbatimNames?.(task) ?? [];
}

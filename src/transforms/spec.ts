/**
 * A transform derives a new task from any suite's task: it may rewrite what the model is shown
 * (prompt, tools), change what the environment enforces (wrapEnvironment), and make built-in models
 * speak the changed interface (adaptModel), so the oracle self-check still holds. It logs what it
 * changed in `changes`, which is stored in the task's origin; the wrapper and adapter read their
 * mapping back from there, so a transformed task file is self-contained and runs anywhere.
 *
 * Drift operators fit the same shape: `apply` rewrites `task.tools` (the schema the model was told
 * about) and records the drift; `wrapEnvironment` enforces the new schema and maps calls back to the
 * suite's environment; `adaptModel` maps the oracle's gold calls onto the new schema.
 *
 * A new transform is one file under src/transforms/ plus one line in ./registry.ts.
 */
import type { Environment } from '../core/environment.ts';
import type { JsonObject } from '../core/json.ts';
import type { Mode } from '../core/mode.ts';
import type { Rng } from '../core/rng.ts';
import type { Task, TransformRecord } from '../core/task.ts';
import type { LanguageModel, ModelSource } from '../models/spec.ts';
import type { ParaphraseCache } from './perturb/model-paraphrase.ts';
import type { Knob } from '../suites/knob.ts';

export type TransformOutput = {
  /** The derived task; the runner sets its id and `origin`. */
  task: Task;
  /** What changed, JSON (stored in origin.transforms[i].changes). */
  changes: JsonObject;
};

export interface TaskTransform {
  readonly id: string;
  /** Bump whenever the output for the same input, seed and knobs changes. */
  readonly version: string;
  readonly description: string;
  readonly knobs: readonly Knob[];
  /**
   * The modes the transform can honour (default: all), or per task when that depends on the suite. A derived
   * task keeps only these of its modes; a task left with none is refused with a ConfigError.
   */
  readonly modes?: readonly Mode[] | ((task: Task) => readonly Mode[]);
  /**
   * A task it derived already is refused (drift: the environment enforces one changed schema, the one the model was
   * not shown; a second drift of the old schema would judge against neither).
   */
  readonly once?: boolean;
  /**
   * Deterministic in (task, rng, knobs, context). Must not change `expected` semantics the suite's scorer reads,
   * unless changing what is judged is the point (drift on webapi: the request the new API expects).
   */
  apply(task: Task, rng: Rng, knobs: JsonObject, context: TransformContext): TransformOutput;
  /**
   * An asynchronous step before `apply`, for what a transform must ask a model (perturb:paraphrase): one JSON per
   * task, handed to `apply` as `context.prepared`; undefined when these knobs need none. Only
   * `applyTransformsPrepared` runs it; `apply` refuses, with the fix, when it needed it and got nothing.
   */
  prepare?(tasks: readonly Task[], knobs: JsonObject, resources: TransformResources): Promise<JsonObject[] | undefined>;
  /**
   * Whether `prepare` asks the phrasing model with these knobs (perturb:paraphrase). Commands without a phrasing model
   * (an eval set, a sweep) refuse such a transform before their first run, and a run's task recipe, which must make
   * the same tasks again from the seed alone, never holds one.
   */
  needsPhrasingModel?(knobs: JsonObject): boolean;
  /** Wraps the suite's environment for one episode of a task this transform produced. */
  wrapEnvironment?(environment: Environment, record: TransformRecord, task: Task): Environment;
  /** Adapts a built-in model (oracle, random...) that reads the task's gold to the transformed interface. */
  adaptModel?(model: LanguageModel, record: TransformRecord, task: Task): LanguageModel;
}

/**
 * What `apply` may use beyond its task: the run's seed, for draws shared by several tasks (drift on webapi makes
 * one new version of each API document, not one per task; `rng` is per task).
 */
export type TransformContext = { seed: number; prepared?: JsonObject };

/** What `prepare` may use: the model that writes text (`--phrasing-model`), its cache, cancellation. */
export type TransformResources = {
  phrasingModel?: ModelSource;
  /** Where paraphrases are kept between runs (default: in memory, for the process). */
  paraphraseCache?: ParaphraseCache;
  signal?: AbortSignal;
};

/** A transform with its parsed knobs, as requested by `--transform id:k=v`. */
export type TransformRequest = { transform: TaskTransform; knobs: JsonObject };

/** A transform as found in a task's origin, resolved against the registry. */
export type AppliedTransform = { transform: TaskTransform; record: TransformRecord };

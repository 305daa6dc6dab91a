/**
 * What a benchmark family provides. A new suite is one folder under src/suites/ plus one line in
 * src/suites/registry.ts; the folder writes a SuiteDefinition and exports `defineSuite(definition)`.
 * Suites never import a vendor adapter: models reach them through the runner.
 */
import type { Agent } from '../agents/spec.ts';
import type { Environment } from '../core/environment.ts';
import type { JsonObject } from '../core/json.ts';
import type { Mode } from '../core/mode.ts';
import type { Score, ScoreDetails, ScoreInput } from '../core/score.ts';
import type { Task } from '../core/task.ts';
import type { HelperModels } from '../models/helper-models.ts';
import type { EpisodeContext, LanguageModel, ModelSource } from '../models/spec.ts';
import type { ZodType } from 'zod';
import type { DifficultyAxis } from './difficulty-axis.ts';
import type { Knob } from './knob.ts';

export type GenerateTasksRequest = {
  seed: number;
  /** How many tasks; undefined = the suite's default (all of an imported file, a default count for generators). */
  count: number | undefined;
  /** Knob values, already parsed with defaults filled (see resolveKnobs). */
  params: JsonObject;
  /** A model for optional model-written phrasing (`--set phrasing=model`); absent in offline runs. */
  phrasingModel?: ModelSource;
  signal?: AbortSignal;
};

/** A task's JSON line (JSON.stringify of the task) and its id. */
export type TaskLine = { id: string; line: string };

/** Where a task stream starts: `from` tasks of the full stream are skipped without being made (default 0). */
export type StreamPosition = { from?: number };

/** What the runner gives a suite's environment for one episode. */
export type EpisodeServices = {
  /** Helper models (helper-models.ts): retried on the run's policy, their retries counted on this episode. */
  models: HelperModels;
};

/** A built-in model that needs no LLM: it reads the task (oracle, random, planner). */
export type BuiltinModel = {
  description: string;
  create(episode: EpisodeContext): LanguageModel;
  /**
   * For a reference with parameters (`builtin/noisy?p=0.3`): the model with them applied. Throws a
   * ConfigError on unknown names or bad values; absent = the model takes no parameters.
   */
  configure?(parameters: Readonly<Record<string, string>>): BuiltinModel;
};

/** One scored episode: as stored (`ScoredEpisode`), or with the suite's own details type (`ScoredEpisode<TDetails>`). */
export type ScoredEpisode<TDetails = ScoreDetails> = { task: Task; trial: number; score: Score<TDetails> };

/**
 * A run's scored episodes, in task order then trial. Read from the store a page at a time: every `for...of`
 * reads them again, and there is no length or index. A summary folds them in one pass into accumulators (small
 * per-task records are fine); it never copies every episode into an array, so a 100,000-episode run stays small.
 * Arrays satisfy the type (tests pass them).
 */
export type ScoredEpisodes<TDetails = ScoreDetails> = Iterable<ScoredEpisode<TDetails>>;

/**
 * A table may ask to be drawn too (HTML report and viewer): a line per `lines` column against the `x` column, one
 * panel per distinct value of `panel` when given. The table stays the data; null cells leave gaps.
 */
export type ReportTableChart = { kind: 'line'; x: string; lines: string[]; panel?: string; yLabel: string; yDomain?: [number, number] };

export type ReportTable = { title: string; columns: string[]; rows: (string | number | null)[][]; chart?: ReportTableChart };

export type SuiteSummary = {
  /** Suite-specific metrics by camelCase name (e.g. avgCallsSuccess, f1Function). */
  metrics: Record<string, number>;
  /** Tables laid out as the paper lays them out (breakdowns etc.). */
  tables: ReportTable[];
};

/**
 * What a suite folder writes: `TExpected` is the shape of its tasks' hidden ground truth, `TDetails` the shape of
 * its scores' details (every score carries them). `defineSuite` makes it a Suite.
 */
export interface SuiteDefinition<TExpected, TDetails extends ScoreDetails> {
  readonly id: string;
  /** Bump whenever generated tasks or grading change. */
  readonly version: string;
  readonly title: string;
  readonly description: string;
  /** The paper file in shared/papers this suite implements. */
  readonly paper: string;
  readonly knobs: readonly Knob[];
  /** The knobs (or task statistics) along which tasks get harder; reports chart accuracy along each. */
  readonly difficultyAxes?: readonly DifficultyAxis[];
  /** Supported modes; the first is the default. */
  readonly modes: readonly Mode[];
  /** Default tasks count when the request leaves it undefined and the suite generates. */
  readonly defaultCount: number;
  /**
   * The shape of `task.expected` (hidden ground truth). The runner checks every task against it once,
   * when tasks are read and before anything runs (a ConfigError naming the task and the field).
   */
  readonly expectedSchema: ZodType<TExpected>;
  /**
   * The shape of `score.details`. Checked when the scorer returns them (a mismatch is a bug in the suite:
   * 'suite.invalid-details') and when stored details are read back for the summary (a mismatch names the episode
   * and the field: 'store.invalid', fixed by `toolforge rescore`).
   */
  readonly detailsSchema: ZodType<TDetails>;
  generate(request: GenerateTasksRequest): Promise<Task[]>;
  /**
   * The same tasks as `generate`, in the same order, one at a time: for suites whose task sets can be large
   * (a 100,000-sample data file, a generator asked for 100,000 tasks), so a run never holds them all. The runner
   * uses it when present; `generate` then usually collects it. With `from`, the stream starts at that index, and
   * the tasks before it are not made (a run's import thread continuing where the run's thread stopped).
   */
  streamTasks?(request: GenerateTasksRequest, position?: StreamPosition): AsyncIterable<Task> | Iterable<Task>;
  /**
   * True when `streamTasks` makes task i from the seed, i and the knobs alone (no model, no file read, nothing carried
   * from task to task), so stream ranges can be made on several threads and joined in order with the same bytes:
   * `toolforge generate` does so for large counts (parallel-generation.ts). Absent: one thread makes the stream.
   */
  readonly makesTasksByIndex?: boolean;
  /**
   * The JSON line of each task `streamTasks` makes, with its id, written without making the task: byte for byte
   * `JSON.stringify` of the task. For a suite whose generation is mostly making a task's objects and serialising them:
   * `toolforge generate --no-validate` writes these on its generation threads (parallel-generation.ts), checking each
   * range's first line against the task. Only with `makesTasksByIndex`.
   */
  streamTaskLines?(request: GenerateTasksRequest, position?: StreamPosition): Iterable<TaskLine>;
  /**
   * True when the tasks for these knobs are a data set's (imported), not made by this suite's generator. Generated
   * tasks are solved by builtin/oracle as they are made, since a generator's bug is ours to catch before a model is
   * scored against it; imported tasks carry the data set's own gold, so they are checked for shape only, once (in a
   * 100,000-sample replay the oracle pass was a fifth of the run). `--model builtin/oracle` checks a data set's gold.
   * Absent: every task is generated.
   */
  importsTasks?(params: JsonObject): boolean;
  /**
   * Throws a ConfigError naming the knob and the fix when a task's knobs cannot work on this machine (a helper model
   * without its server's address, a template file that is not there). The runner calls it as tasks enter a run,
   * the first task's before the run is recorded, once per distinct `params`: knobs are stored in the tasks, so a run
   * whose first episode found them wrong could not be continued by `--resume`. Absent: nothing to check.
   */
  checkTaskParams?(params: JsonObject): void;
  /**
   * What a task's parts disagree on, naming the field (its tools and its ground truth), or undefined: a task edited by
   * hand into disagreement (a tool the solution needs taken out of the list) would pass the oracle, which reads the
   * ground truth, while no model could solve it. The runner calls it once as each task enters a run, after the
   * `expectedSchema` check. Absent: nothing to check.
   */
  taskProblem?(task: Task): string | undefined;
  /**
   * Names the task's request states that a model must copy exactly but that are not its tools' or their parameters'
   * names (funcgen's variables, the target among them): a query perturbation (case mixing, punctuation noise) leaves
   * them as they are, or the request would name something the task does not have. Absent: none beyond those.
   */
  verbatimNames?(task: Task): readonly string[];
  /**
   * The episode's environment. `services` are the runner's for this episode: the helper models a suite calls for its
   * own work (an LLM simulator), their requests retried on the run's policy. Absent outside the runner.
   */
  createEnvironment(task: Task, mode: Mode, services?: EpisodeServices): Promise<Environment>;
  /** A suite-specific agent for a mode; the runner falls back to the generic agent of that mode. */
  createAgent?(mode: Mode): Agent | undefined;
  /** The score of an episode; `models` are the helper models a scorer calls (a judge), as in EpisodeServices. */
  score(input: ScoreInput & { mode: Mode; models?: HelperModels }): Promise<Score<TDetails>>;
  /** The suite's figures from its scored episodes, whose details have passed `detailsSchema`. */
  summarize(episodes: ScoredEpisodes<TDetails>): SuiteSummary;
  readonly builtinModels: Readonly<Record<string, BuiltinModel>>;
}

/**
 * A suite as the runner, the registry and reports see it (made by `defineSuite`): `score` returns details checked
 * against `detailsSchema`, and `summarize` takes stored episodes (their details plain JSON) and checks each one's details
 * before the suite's own summary reads them.
 */
export interface Suite<TExpected = unknown, TDetails extends ScoreDetails = ScoreDetails> extends Omit<SuiteDefinition<TExpected, TDetails>, 'summarize'> {
  summarize(episodes: ScoredEpisodes): SuiteSummary;
}

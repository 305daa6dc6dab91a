/**
 * Runs one model on a list of tasks, `trials` times each, with bounded concurrency, committing every
 * episode to the results store the moment it ends. Model requests are retried inside the episode
 * (src/models/request-retry.ts); an episode is restarted only when its environment or sandbox broke.
 * What still fails is recorded as `infrastructure-error` (never scored) and retried by
 * `resumeEvaluation`, which reruns only missing and infrastructure-error episodes of a stored run.
 * Every retry is counted per cause on its episode.
 */
import { z } from 'zod';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { AgentSource } from '../agents/spec.ts';
import type { EpisodeRecord } from '../core/episode.ts';
import { sameFile } from '../core/portable-path.ts';
import { isStoreWriteFailure } from '../core/system-error.ts';
import { ConfigError, ToolForgeError, errorMessage } from '../core/errors.ts';
import type { JsonObject } from '../core/json.ts';
import { canonicalJson } from '../core/json.ts';
import { longestTimerMs } from '../core/limits.ts';
import type { Mode } from '../core/mode.ts';
import type { Task } from '../core/task.ts';
import { emptyUsage } from '../core/usage.ts';
import type { GenerationSettings, ModelSource, PlannedTask, RequestRetry } from '../models/spec.ts';
import { defaultResultsPath, openResultsStore } from '../store/results-store.ts';
import type { ResultsStore } from '../store/results-store.ts';
import { storedTaskRecipeSchema, storedTasksFileSchema } from '../store/record-schemas.ts';
import { unusedRunId } from '../store/run-id.ts';
import type { Provenance, RunStatus, StoredRun, StoredTaskRecipe, StoredTasksFile } from '../store/stored-run.ts';
import { getSuite } from '../suites/registry.ts';
import type { Suite } from '../suites/spec.ts';
import { forEachWithConcurrency } from './bounded-concurrency.ts';
import { createGroupCommit } from './group-commit.ts';
import { canWriteOnThread, startEpisodeWriter } from './episode-writer.ts';
import { createInfrastructureStop, defaultInfrastructureStopAfter } from './infrastructure-stop.ts';
import { collectProvenance } from './provenance.ts';
import { modelReferenceIn, resolveModelSource } from './resolve-model-source.ts';
import { startAgainFix } from './interrupted-run.ts';
import { listTransforms, parseSeededTransformRequest } from '../transforms/registry.ts';
import { parseModelReference } from '../models/registry.ts';
import { withResponseCache } from '../models/response-cache.ts';
import type { ResponseCacheCounters, ResponseCachePolicy, ResponseCacheStorage } from '../models/response-cache.ts';
import type { HelperModelSources } from '../models/helper-models.ts';
import { createHelperModelSources } from '../models/helper-models.ts';
import type { RetryWaitBudget } from '../models/request-retry.ts';
import { createRetryWaitBudget } from '../models/request-retry.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { defaultRetryPolicy, retryDelayMs, shouldRestartEpisode } from './retry-policy.ts';
import { checkSuiteMode, episodeMode } from './episode-mode.ts';
import { createLazySandbox } from './lazy-sandbox.ts';
import { runEpisode } from './run-episode.ts';
import type { Sandbox } from '../sandbox/spec.ts';
import type { RunProgressListener } from './run-progress.ts';
import type { RunSummary } from './summarize-run.ts';
import { summarizeRun } from './summarize-run.ts';
import { checkExpected, checkTaskShape, createStoredTaskCheck, createStreamTaskCheck, createTaskParamsCheck, storeTasks, trustStoredTask } from './store-tasks.ts';
import type { TaskImport, TaskRecipe } from './task-import.ts';
import type { TaskSelection } from './select-tasks.ts';
import { selectTaskStream } from './select-tasks.ts';
import { streamTasksFile } from './read-tasks-file.ts';
import { validateTaskStream } from './generate-tasks.ts';
import { canImportOnThread, recipeTasks, startTaskImport } from './task-import.ts';
import type { MadeTasks } from './run-as-made.ts';
import { madeTaskPlan } from './run-as-made.ts';
import { checkRunAgent, resumeCommand } from './external-agent-run.ts';
import { withRunHeld } from './run-hold.ts';
import { formatFieldPath } from '../core/field-path.ts';
import type { EvalSetOptions } from './run-eval-set.ts';
import type { ServingOptions } from '../mcp/serve-run.ts';
import { editDistance } from '../core/edit-distance.ts';

export type ExecutionOptions = {
  concurrency?: number;
  onProgress?: RunProgressListener;
  /** Aborting stops the run: in-flight episodes are dropped (nothing half-done is recorded). */
  signal?: AbortSignal;
  /** Request retries, request timeout (`timeoutMs`), episode restarts; see retry-policy.ts. */
  retry?: Partial<RetryPolicy>;
  /** Overrides every task's `limits.timeLimitMs` (`--episode-timeout`). */
  episodeTimeoutMs?: number;
  /** An open store to use instead of opening `dbPath` (the caller closes it). */
  store?: ResultsStore;
  /** Default `.toolforge/results.db`. */
  dbPath?: string;
  /** Where provider API keys are read from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Answer repeated provider requests from a cache (see models/response-cache.ts); counters are updated. */
  responseCache?: { storage: ResponseCacheStorage; policy: ResponseCachePolicy; counters?: ResponseCacheCounters };
  /** An external agent (src/mcp/) used instead of resolving the model reference; its ref is the run's model. */
  agent?: AgentSource;
  /**
   * Stop the run once this many episodes in a row end in infrastructure errors (infrastructure-stop.ts); 0 never
   * stops. Default: 20 or twice the concurrency, whichever is more.
   */
  stopAfterInfrastructureErrors?: number;
  /**
   * What the run may still lose waiting on retries (`retry.maxTotalWaitMs`, `--max-retry-wait`): one budget for the
   * model under test and the suite's helper models (a simulator, a judge). Default: a new one per run; pass one to
   * share it across runs.
   */
  waitBudget?: RetryWaitBudget;
  /** The ` --db <file>` that commands printed to paste repeat (the CLI's; '' for the default database). */
  databaseFlag?: string;
};

export type RunOptions = ExecutionOptions & {
  suite: Suite;
  /** The run's tasks in order; a stream is written to the store in batches as it is read, never held whole. */
  tasks: TaskSource;
  modelRef: string;
  /**
   * The folder a relative replay file (`modelRef: 'replay/<file>'`) is read from when it is there (an eval set's own
   * folder); else, and by default, the working folder. The run is named by `modelRef` as given.
   */
  directory?: string;
  baseUrl?: string;
  /** Default: each task's first mode. */
  mode?: Mode;
  /** Default 1. */
  trials?: number;
  settings?: GenerationSettings;
  /** The seed and knob values the tasks were generated with (provenance). */
  seed: number;
  params: JsonObject;
  cliArgs?: string[];
  /**
   * Score planned episodes that a stored-output model (replay) has no output for as failures. Default false:
   * such a run is refused before it starts, naming the first missing task ids.
   */
  allowMissingOutputs?: boolean;
  /** Keep every model call's raw vendor request and response with its episode. */
  keepRaw?: boolean;
  /**
   * Record the run and queue its episodes without running any (`run --workers-only`): `toolforge worker` processes
   * on any number of machines then claim and run them (run-worker.ts).
   */
  workersOnly?: boolean;
  /**
   * How `tasks` were made, when a registered suite made them unchanged (its generator or importer, a selection, no
   * transforms). A built-in model's run then runs each task as it is made, storing it first, instead of storing them
   * all and reading each back (run-as-made.ts); a replay model's run, past `importThreadAfter` tasks, imports the rest
   * on a worker thread while its episodes run (task-import.ts). The recipe must make the same tasks as `tasks`. The
   * import thread is not used when the store is not a SQLite file another connection can open, or the suite is not a
   * registered one.
   */
  taskRecipe?: TaskRecipe;
  /**
   * With `taskRecipe`: how many tasks are stored before the rest of a longer stream goes to the import thread (default
   * 2,048). Given, it also has a built-in model's run use the import thread.
   */
  importThreadAfter?: number;
  /**
   * The tasks file `tasks` were read from, when they are its tasks unchanged (no transform; `run --tasks`): recorded, so
   * a run stopped before they were all stored is continued by resumeEvaluation from the same file, read the same way
   * (checked by the oracle when `validate`, then `selection`). `tasks` must be that stream. A relative path is taken
   * from the working folder.
   */
  tasksFile?: TasksFileReading;
};

/** How a run reads its tasks file (see RunOptions.tasksFile). */
export type TasksFileReading = { path: string; validate: boolean; selection?: TaskSelection };

export type ResumeOptions = ExecutionOptions & {
  runId: string;
  /** Default: the registered suite of the run's id (its version must match the run's). */
  suite?: Suite;
  /** Default: the base URL the run was started with. */
  baseUrl?: string;
  /** Recorded in the run's provenance with the resume. */
  cliArgs?: string[];
  /**
   * Where the run's tasks file is now, when it was moved: a run stopped while the tasks of its `--tasks` file were being
   * stored reads the rest from here instead of the path it recorded. It must give the same tasks (the stored ones are
   * compared). Only for such a run: other runs read their tasks from the store.
   */
  tasksFile?: string;
};

/**
 * The option names each function takes, so a misspelt one (`trails: 3`) is refused instead of run with the default.
 * `satisfies` makes TypeScript fail here when a field is added to (or taken from) the type and not this list. Listed in
 * the order the refusal's fix names them: what a caller needs first.
 */
const executionOptionNames = {
  dbPath: true, store: true, concurrency: true, onProgress: true, signal: true, retry: true, episodeTimeoutMs: true, env: true,
  responseCache: true, agent: true, stopAfterInfrastructureErrors: true, waitBudget: true, databaseFlag: true,
} as const satisfies Record<keyof ExecutionOptions, true>;

const runOptionNames = {
  suite: true, tasks: true, modelRef: true, seed: true, params: true, trials: true, mode: true, baseUrl: true, settings: true,
  ...executionOptionNames, cliArgs: true, allowMissingOutputs: true, keepRaw: true, workersOnly: true, taskRecipe: true, importThreadAfter: true,
  tasksFile: true, directory: true,
} as const satisfies Record<keyof RunOptions, true>;

const resumeOptionNames = {
  runId: true, ...executionOptionNames, suite: true, baseUrl: true, cliArgs: true, tasksFile: true,
} as const satisfies Record<keyof ResumeOptions, true>;

/**
 * Options of runEvalSet and serveRun (and their resumes) that they hand on, in the same object, to runEvaluation or
 * resumeEvaluation, which read none of them: not a caller's typo, so not refused.
 */
const handedOnOptionNames = {
  evalSet: true, name: true, onCell: true, transport: true, stdio: true, port: true, streamGoneGraceMs: true, clientName: true, onListening: true,
} as const satisfies Record<Exclude<keyof EvalSetOptions | keyof ServingOptions, keyof RunOptions>, true>;

export const defaultConcurrency = 4;

/** Tasks in run order: an array, or a stream (a tasks file read line by line, a generator) that is never held whole. */
export type TaskSource = Iterable<Task> | AsyncIterable<Task>;

export async function runEvaluation(given: RunOptions): Promise<RunSummary> {
  checkRunOptions(given);
  const options = withWaitBudget(given);
  const { suite } = options;
  const trials = options.trials ?? 1;
  const concurrency = options.concurrency ?? defaultConcurrency;
  checkPositiveInteger('trials', trials, '--trials <n>');
  checkPositiveInteger('concurrency', concurrency, '--concurrency <n>');
  checkSuiteMode(suite, options.mode);
  checkExecutionOptions(options);
  if (options.importThreadAfter !== undefined && !(Number.isInteger(options.importThreadAfter) && options.importThreadAfter >= 0)) {
    throw new ConfigError('config.invalid', `importThreadAfter must be a non-negative integer, got ${options.importThreadAfter}`, {
      fix: 'pass the number of tasks to store before the import thread takes over (default 2048), or leave it out',
    });
  }
  // A recipe makes the same tasks again from the seed alone: a transform that asks a phrasing model cannot be in one.
  (options.taskRecipe?.transforms ?? []).forEach((text, index) => {
    try {
      parseSeededTransformRequest(text, 'a task recipe');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new ConfigError(error.code, `options.taskRecipe.transforms[${index}]: ${error.problem}`, {
        fix: 'leave taskRecipe out for tasks a phrasing model rewrote (a run stopped while storing them is then started again, not resumed)', cause: error,
      });
    }
  });
  // Resolve the model first: a bad reference or a missing key fails before a run is recorded.
  const sourceRef = modelReferenceIn(options.modelRef, options.directory);
  const model = options.agent ?? cached(resolveModelSource(suite, sourceRef, { baseUrl: options.baseUrl, env: options.env, retry: options.retry, budget: options.waitBudget }), options.baseUrl, options);
  const settings = checkGenerationSettings(options.settings ?? {});
  const baseUrl = options.baseUrl ?? null;
  const tasks = asyncIteratorOf(options.tasks);
  const first = await tasks.next();
  if (first.done) throw noTasksError(suite, options.params);
  // Knobs that cannot work here are refused before a run is recorded; the rest are checked as they are stored.
  const checkParams = createTaskParamsCheck(suite);
  checkTaskShape(first.value, 0);
  checkParams(first.value);
  checkTaskKnobs(suite, first.value, options.params);
  return withStore(options, async (store) => {
    const runId = unusedRunId(store, suite.id);
    const mode = options.mode ?? null;
    const provenance = collectProvenance({
      suite, modelRef: options.modelRef, ...(sourceRef !== options.modelRef ? { modelFile: sourceRef.slice('replay/'.length) } : {}),
      baseUrl, settings, seed: options.seed, params: options.params, mode, trials,
      cliArgs: options.cliArgs ?? [], keepRaw: options.keepRaw ?? false, transforms: transformsOf(first.value),
      ...(options.taskRecipe ? { taskRecipe: storedRecipe(options.taskRecipe, options.allowMissingOutputs === true) } : {}),
      ...(options.tasksFile && !options.taskRecipe ? { tasksFile: storedTasksFile(options.tasksFile, options.allowMissingOutputs === true) } : {}),
    });
    store.beginRun({
      id: runId, suite: { id: suite.id, version: suite.version }, model: options.modelRef, baseUrl, mode, trials, concurrency,
      seed: options.seed, params: options.params, settings, provenance,
    });
    options.onProgress?.({ type: 'run-recorded', runId });
    // Held by this process from its start: a resume, delete or rescore elsewhere is refused until it ends.
    return withRunHeld(store, runId, 'started', async () => {
      // A long stream of a registered suite's own tasks, for a model scored on this machine, is handed to the task import
      // thread once this many are stored (task-import.ts): the rest are imported while the episodes run.
      const recipe = options.taskRecipe;
      let handedOff: TaskRecipe | undefined;
      const handOff = recipe !== undefined && options.workersOnly !== true && options.agent === undefined && scoresOnThisMachine(model) && canImportOnThread(store, suite)
        && (options.importThreadAfter !== undefined || !knownShort(recipe));
      // A built-in model's run of a recipe's tasks runs them as they are made, unless the caller asked for the import
      // thread (importThreadAfter).
      if (recipe !== undefined && options.workersOnly !== true && options.agent === undefined && isBuiltinModel(model) && options.importThreadAfter === undefined) {
        return runAsMade(store, runId, options, model, { first: first.value, rest: tasks, check: createStreamTaskCheck(suite, options.mode, checkParams), ...expectedCountOf(recipe) }, concurrency);
      }
      // The tasks stream into the store in batches (checked as they pass); the run then reads them back a page at a
      // time, so no moment holds them all. A refused task leaves no run behind, as when tasks were checked up front.
      try {
        const stored = await storeTasks(store, runId, suite, options.mode, first.value, tasks, {
          checkParams, shouldStop: () => options.signal?.aborted === true, ...(handOff ? { handOffAfter: options.importThreadAfter ?? importThreadAfterTasks } : {}),
        });
        if (!stored.ended && recipe !== undefined && !options.signal?.aborted) {
          await tasks.return?.();
          handedOff = recipe;
        } else if (options.signal?.aborted) {
          // Interrupted while its tasks were written: the run stays, marked incomplete; --resume says to start again.
          store.setRunStatus(runId, 'cancelled');
          return summarizeRun(store, runId, suite);
        } else {
          const missingOutputs = checkOutputCoverage(model, store, runId, suite, stored.written, trials, options);
          store.completeTasks(runId, missingOutputs.length > 0 ? { ...provenance, missingOutputs } : undefined);
        }
      } catch (error) {
        // A refused task leaves no run; a store that failed a write keeps what it has, for --resume.
        if (!isStoreWriteFailure(error)) deleteRefusedRun(store, runId);
        throw error;
      }
      if (handedOff) return continueOnImportThread(store, runId, options, model, handedOff, provenance);
      const run = store.getRun(runId);
      if (options.workersOnly) {
        const queued = store.enqueueEpisodes(runId);
        options.onProgress?.({ type: 'run-start', runId, plannedEpisodes: queued.pending, alreadyScoredEpisodes: 0, totalEpisodes: run.taskCount * trials });
      } else {
        // Tasks the caller passed as an array are already held whole by the caller: the run reads them from it, not
        // back from the store (a JSON parse of every task, per episode, for the same objects).
        const heldTasks = Array.isArray(options.tasks) ? options.tasks as readonly Task[] : undefined;
        await executeRun(store, run, suite, model, { ...options, concurrency, heldTasks, tasksCheckedHere: true });
      }
      return summarizeRun(store, runId, suite);
    });
  });
}

/**
 * A built-in model's run of a built-in suite's own tasks (its recipe), run as they are made (run-as-made.ts). A task
 * refused, or an episode's configuration error, stops it: a run stopped before every task was stored is deleted, as
 * one refused before it started is; a store that failed a write keeps what it recorded, for --resume.
 */
async function runAsMade(store: ResultsStore, runId: string, options: RunOptions, model: ModelSource, madeTasks: MadeTasks, concurrency: number): Promise<RunSummary> {
  const { suite } = options;
  try {
    await executeRun(store, store.getRun(runId), suite, model, { ...options, concurrency, madeTasks, tasksCheckedHere: true });
  } catch (error) {
    if (error instanceof ConfigError && !isStoreWriteFailure(error) && !store.hasAllTasks(runId)) deleteRefusedRun(store, runId);
    throw error;
  }
  return summarizeRun(store, runId, suite);
}

/** The task count a recipe makes, when it says: its count (or limit), unless id patterns select among them; at most that. */
function expectedCountOf(recipe: TaskRecipe): { expectedCount?: number; atMost?: number } {
  const count = Math.min(recipe.count ?? Infinity, recipe.selection?.limit ?? Infinity);
  if (!Number.isFinite(count)) return {};
  return (recipe.selection?.taskIds ?? []).length > 0 ? { atMost: count } : { expectedCount: count, atMost: count };
}

/** A run refused while its tasks streamed in, deleted; a delete that fails leaves it (shown as interrupted) and the refusal is what is said. */
function deleteRefusedRun(store: ResultsStore, runId: string): void {
  try {
    store.deleteRun(runId);
  } catch {
    // The caller throws the refusal, which says what to fix.
  }
}

/**
 * Tasks stored on the run's thread before a long stream is handed to the import thread: fewer and the thread's start
 * (its own copy of the suite: ~0.3 s, more for a suite that parses OpenAPI files) costs more than it saves; more and
 * the thread re-reads more of the stream to reach where this one stopped.
 */
const importThreadAfterTasks = 2048;

/**
 * A recipe known to make at most this many tasks (`count`, `--limit`) is stored on the run's thread whole: the import
 * thread's start and the episode writer thread it displaces cost more than it saves below ~6,000 tasks (measured,
 * funcgen planner runs of 3,000 / 6,000 / 10,000 tasks: 3.95 / 6.10 / 8.53 s with the import thread, 3.65 / 6.06 /
 * 9.65 s without). A data file's length is not known: its stream is handed on after importThreadAfterTasks.
 */
const importThreadMinimumTasks = 6144;

function knownShort(recipe: TaskRecipe): boolean {
  return Math.min(recipe.count ?? Infinity, recipe.selection?.limit ?? Infinity) <= importThreadMinimumTasks;
}

/**
 * A run whose first tasks are stored, continued with the rest imported on a worker thread while the episodes run
 * (task-import.ts). The thread reads the stream again from the start, checks that its first tasks are the stored
 * ones, and stores the rest. The run is the same as the one-thread path's: tasks checked the same way and stored in
 * order, a replay file's coverage checked once every task is stored (a refused run is deleted, as when it is refused
 * before it starts), and an interrupted run left with its tasks marked incomplete.
 */
async function continueOnImportThread(
  store: ResultsStore, runId: string, options: RunOptions, model: ModelSource, recipe: TaskRecipe, provenance: Provenance,
): Promise<RunSummary> {
  const { suite } = options;
  return importWhileRunning(store, store.getRun(runId), suite, model, recipe, {
    ...options, concurrency: options.concurrency ?? defaultConcurrency, provenance, whenRefused: 'delete-run', justStored: true,
  });
}

/**
 * The import thread storing the rest of `run`'s tasks while the run's episodes run. A run started here is deleted
 * when refused (as before it starts); a resumed one keeps what it recorded and stays resumable.
 */
async function importWhileRunning(
  store: ResultsStore, run: StoredRun, suite: Suite, model: ModelSource, recipe: TaskRecipe,
  options: ExecutionOptions & {
    concurrency: number; allowMissingOutputs?: boolean; provenance: Provenance; whenRefused: 'delete-run' | 'keep-run';
    /** The run stored its first tasks just now (not a resume): the thread need not make them again (TaskImportJob). */
    justStored: boolean;
  },
): Promise<RunSummary> {
  const runId = run.id;
  const importing = startTaskImport({
    location: store.path, runId, suiteId: suite.id, ...(run.mode ? { mode: run.mode } : {}), recipe, storedTaskIds: store.listTaskIds(runId),
    justStored: options.justStored,
  });
  const refusal = new AbortController();
  let refused: unknown;
  const refuse = (error: unknown): void => {
    refused ??= error;
    refusal.abort(error);
  };
  // Every task stored: the checks the one-thread path makes before its first episode, made now.
  const imported = importing.result.then((count) => {
    const missingOutputs = checkOutputCoverage(model, store, runId, suite, count, run.trials, options);
    store.completeTasks(runId, missingOutputs.length > 0 ? { ...options.provenance, missingOutputs } : undefined);
  }).catch(refuse);
  const signal = options.signal ? AbortSignal.any([options.signal, refusal.signal]) : refusal.signal;
  let failure: { error: unknown } | undefined;
  try {
    await executeRun(store, run, suite, model, { ...options, signal, importing, tasksCheckedHere: options.justStored });
    await untilAborted(imported, options.signal);
  } catch (error) {
    failure = { error };
  } finally {
    await importing.stop();
  }
  if (refused !== undefined) {
    // The store failed a write (a full disk): the run keeps what it recorded, for --resume, as on the one-thread path.
    if (isStoreWriteFailure(refused)) throw refused;
    // Refused (the import failed, or a replay file misses outputs): a new run is not left, as on the one-thread path.
    if (options.whenRefused === 'delete-run') store.deleteRun(runId);
    else store.setRunStatus(runId, 'cancelled');
    throw refused;
  }
  if (failure) {
    // An episode's ConfigError stopped the run (wrong for every episode): a new run stopped before every task was
    // stored is not kept; a resumed one is. A run stopped by failing infrastructure is kept, for --resume (it stores
    // the rest of the tasks from the run's recipe).
    if (options.whenRefused === 'delete-run' && failure.error instanceof ConfigError && !isStoreWriteFailure(failure.error) && !store.hasAllTasks(runId)) deleteRefusedRun(store, runId);
    throw failure.error;
  }
  return summarizeRun(store, runId, suite);
}

/**
 * A run stopped while its tasks were being stored, continued: its recipe makes the task stream again, the tasks
 * already stored must be the stream's first ones, and the rest are stored (on the import thread for a built-in or
 * replay model, as when it started; first on this thread otherwise) while or before the missing episodes run.
 */
async function resumeStoringTasks(
  store: ResultsStore, run: StoredRun, suite: Suite, model: ModelSource, recipe: StoredTaskRecipe,
  options: ResumeOptions & { concurrency: number },
): Promise<RunSummary> {
  const { allowMissingOutputs = false, ...taskRecipe } = recipe;
  const execution = { ...options, allowMissingOutputs, provenance: run.provenance };
  if (scoresOnThisMachine(model) && canImportOnThread(store, suite)) {
    return importWhileRunning(store, run, suite, model, taskRecipe, { ...execution, whenRefused: 'keep-run', justStored: false });
  }
  const tasks = recipeTasks(suite, taskRecipe, options.signal);
  const first = await tasks.next();
  if (first.done) throw new ConfigError('input.invalid', `run '${run.id}': its tasks, made again, are none`, { fix: 'start the run again' });
  const stored = await storeTasks(store, run.id, suite, run.mode ?? undefined, first.value, tasks, {
    storedTaskIds: store.listTaskIds(run.id), shouldStop: () => options.signal?.aborted === true,
  });
  if (!stored.ended) {
    store.setRunStatus(run.id, 'cancelled');
    return summarizeRun(store, run.id, suite);
  }
  const missingOutputs = checkOutputCoverage(model, store, run.id, suite, stored.written, run.trials, execution);
  store.completeTasks(run.id, missingOutputs.length > 0 ? { ...run.provenance, missingOutputs } : undefined);
  await executeRun(store, store.getRun(run.id), suite, model, options);
  return summarizeRun(store, run.id, suite);
}

/**
 * A run stopped while the tasks of its tasks file were being stored, continued: the file is read again as the run read
 * it (the oracle's check of each task when the run made it, then its selection), the tasks already stored must be the
 * file's first ones, unchanged, and the rest are stored before the missing episodes run. Only the tasks not yet stored
 * are solved by the oracle again.
 */
async function resumeStoringFileTasks(
  store: ResultsStore, run: StoredRun, suite: Suite, model: ModelSource, file: StoredTasksFile,
  options: ResumeOptions & { concurrency: number },
): Promise<RunSummary> {
  const storedIds = store.listTaskIds(run.id);
  const recordedPath = checkedTasksFile(run, options.databaseFlag).path;
  const moved = file.path !== recordedPath;
  const changed = moved ? `it is not the tasks file the run read from ${recordedPath}, or that file changed since` : 'the tasks file changed since the run read it';
  const changedFix = `resume with the tasks file the run started with, unchanged (it was at ${recordedPath}${moved ? '; pass where it is now with --tasks <file>' : ''}); or start a new run on the new file and delete this one with 'toolforge delete ${run.id}${options.databaseFlag ?? ''}'`;
  const lines = new Map<string, number>();
  const where = (task: Task): string => `${file.path}${lines.has(task.id) ? `:${lines.get(task.id)}` : ''}`;
  const fileTasks = streamTasksFile(file.path, { suiteId: suite.id, lines, check: (task) => checkExpected(suite, task) });
  const selected = selectTaskStream(fileTasks, file.selection ?? {})[Symbol.asyncIterator]();
  const storedTask = storedTaskReader(store, run.id);
  // The stored ones are compared, not solved again; the rest pass the oracle as the run's first tasks did.
  async function* resumed(): AsyncGenerator<Task> {
    for (let ordinal = 0; ordinal < storedIds.length; ordinal += 1) {
      const step = await selected.next();
      if (step.done) {
        throw new ConfigError('input.invalid', `${file.path} now gives ${ordinal} task${ordinal === 1 ? '' : 's'}, but run '${run.id}' stored ${storedIds.length} from it: ${changed}`, { fix: changedFix });
      }
      const stored = storedTask(ordinal);
      if (stored === undefined || canonicalJson(step.value) !== canonicalJson(stored)) {
        throw new ConfigError('input.invalid', `${where(step.value)}: task '${step.value.id}' is not the task run '${run.id}' stored as its task ${ordinal} ('${storedIds[ordinal]}'): ${changed}`, { fix: changedFix });
      }
      yield step.value;
    }
    const rest = { [Symbol.asyncIterator]: () => selected };
    yield* file.validate ? validateTaskStream(suite, rest, { source: file.path, signal: options.signal, lineOf: (taskId) => lines.get(taskId) }) : rest;
  }
  const tasks = resumed();
  let first: IteratorResult<Task>;
  try {
    first = await tasks.next();
  } catch (error) {
    // The file is opened at the first read: one that is gone or unreadable is named with what to do.
    throw error instanceof ConfigError && error.code === 'input.unreadable' ? tasksFileGone(run, file.path, recordedPath, error, options.databaseFlag) : error;
  }
  if (first.done) throw new ConfigError('input.invalid', `run '${run.id}': its tasks file ${file.path} now gives no task, but the run stored ${storedIds.length}`, { fix: changedFix });
  const stored = await storeTasks(store, run.id, suite, run.mode ?? undefined, first.value, tasks, {
    storedTaskIds: storedIds, shouldStop: () => options.signal?.aborted === true,
  });
  if (!stored.ended) {
    store.setRunStatus(run.id, 'cancelled');
    return summarizeRun(store, run.id, suite);
  }
  const execution = { ...options, allowMissingOutputs: file.allowMissingOutputs === true, provenance: run.provenance };
  const missingOutputs = checkOutputCoverage(model, store, run.id, suite, stored.written, run.trials, execution);
  store.completeTasks(run.id, missingOutputs.length > 0 ? { ...run.provenance, missingOutputs } : undefined);
  await executeRun(store, store.getRun(run.id), suite, model, options);
  return summarizeRun(store, run.id, suite);
}

/** A run's stored tasks by ordinal, read forward a page at a time (a resume compares them in order). */
function storedTaskReader(store: ResultsStore, runId: string): (ordinal: number) => Task | undefined {
  const pageSize = 256;
  let page = new Map<number, Task>();
  return (ordinal) => {
    if (!page.has(ordinal)) page = store.listTasksBetween(runId, ordinal, ordinal + pageSize - 1);
    return page.get(ordinal);
  };
}

function tasksFileGone(run: StoredRun, path: string, recordedPath: string, error: ConfigError, databaseFlag: string | undefined): ConfigError {
  const command = resumeCommand(run, databaseFlag);
  const fix = path === recordedPath
    ? `put the tasks file the run started with back at ${path} and run '${command}' again, or pass where it is now: '${command} --tasks <file>'`
    : `pass where the tasks file the run started with is now: '${command} --tasks <file>' (the run read it from ${recordedPath})`;
  return new ConfigError(error.code, `run '${run.id}' reads the rest of its tasks from ${path}: ${error.problem}`, {
    fix: `${fix}; or start a new run and delete this one with 'toolforge delete ${run.id}${databaseFlag ?? ''}'`,
    cause: error,
  });
}

/**
 * A moved tasks file passed to a resume (ResumeOptions.tasksFile): only a run stopped while the tasks of its tasks file
 * were being stored reads one again.
 */
export function checkMovedTasksFile(store: ResultsStore, run: StoredRun, path: string, databaseFlag: string | undefined): string {
  const recorded = run.provenance.tasksFile;
  if (recorded === undefined) {
    const origin = run.provenance.taskRecipe ? `made by suite ${run.suite.id} from seed ${run.seed}` : 'passed to it, or transformed, with no file recorded to read them from again';
    throw new ConfigError('config.invalid', `run '${run.id}' did not read its tasks from a tasks file it recorded (they were ${origin}), so a resume has no use for ${path}`, {
      fix: `drop --tasks: '${resumeCommand(run, databaseFlag)}'`,
    });
  }
  if (store.hasAllTasks(run.id)) {
    throw new ConfigError('config.invalid', `run '${run.id}' stored all ${run.taskCount} of its tasks from ${recorded.path}: a resume reads them from the store, not from ${path}`, {
      fix: `drop --tasks: '${resumeCommand(run, databaseFlag)}'`,
    });
  }
  return path;
}

/** The stored tasks file, checked: a store file is read from disk. */
function checkedTasksFile(run: StoredRun, databaseFlag: string | undefined): StoredTasksFile {
  const parsed = storedTasksFileSchema.safeParse(run.provenance.tasksFile);
  if (parsed.success) return run.provenance.tasksFile as StoredTasksFile;
  const issue = parsed.error.issues[0];
  throw new ConfigError('store.invalid', `run '${run.id}': its stored tasks file record is invalid (${formatFieldPath(issue?.path ?? [], 'provenance.tasksFile')}: ${issue?.message ?? 'invalid'}), so its remaining tasks cannot be read again`, {
    fix: startAgainFix(run, databaseFlag),
  });
}

/** The stored recipe, checked: a store file is read from disk, and a bad recipe would make other tasks. */
function checkedRecipe(run: StoredRun, databaseFlag: string | undefined): StoredTaskRecipe {
  const invalid = (path: readonly PropertyKey[], problem: string): ConfigError => new ConfigError('store.invalid', `run '${run.id}': its stored task recipe is invalid (${formatFieldPath(path, 'provenance.taskRecipe')}: ${problem}), so its remaining tasks cannot be made again`, {
    fix: startAgainFix(run, databaseFlag),
  });
  const parsed = storedTaskRecipeSchema.safeParse(run.provenance.taskRecipe);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(issue?.path ?? [], issue?.message ?? 'invalid');
  }
  // A transform this ToolForge does not have (or no longer takes those knobs) is the record's fault, not a flag's.
  (parsed.data.transforms ?? []).forEach((text, index) => {
    try {
      parseSeededTransformRequest(text, 'a task recipe');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw invalid(['transforms', index], `${error.problem}; this ToolForge takes ${listTransforms().map((transform) => transform.id).join(', ')}`);
    }
  });
  // Checked just now; the schema's own JSON type is wider than JsonObject.
  return run.provenance.taskRecipe as StoredTaskRecipe;
}

/** The recipe as the run's provenance keeps it (JSON: no undefined fields). */
function storedRecipe(recipe: TaskRecipe, allowMissingOutputs: boolean): StoredTaskRecipe {
  const selection = storedSelection(recipe.selection);
  return {
    seed: recipe.seed, ...(recipe.count !== undefined ? { count: recipe.count } : {}), params: recipe.params,
    ...(selection ? { selection } : {}), ...(recipe.transforms && recipe.transforms.length > 0 ? { transforms: [...recipe.transforms] } : {}),
    ...(allowMissingOutputs ? { allowMissingOutputs: true } : {}),
  };
}

/** A task selection as provenance keeps it, undefined when it selects every task. */
function storedSelection(selection: TaskSelection | undefined): { taskIds?: string[]; limit?: number } | undefined {
  const stored = {
    ...(selection?.taskIds && selection.taskIds.length > 0 ? { taskIds: [...selection.taskIds] } : {}),
    ...(selection?.limit !== undefined ? { limit: selection.limit } : {}),
  };
  return Object.keys(stored).length > 0 ? stored : undefined;
}

/** The tasks file as the run's provenance keeps it: an absolute path, JSON (no undefined fields). */
function storedTasksFile(reading: TasksFileReading, allowMissingOutputs: boolean): StoredTasksFile {
  const selection = storedSelection(reading.selection);
  return {
    path: resolve(reading.path), validate: reading.validate,
    ...(selection ? { selection } : {}), ...(allowMissingOutputs ? { allowMissingOutputs: true } : {}),
  };
}

/** Waits for `promise`, or less when the signal aborts first (then resolves); the abort listener is removed after. */
async function untilAborted(promise: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) {
    await promise;
    return;
  }
  if (signal.aborted) return;
  let onAbort = (): void => {};
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function asyncIteratorOf(source: TaskSource): AsyncIterator<Task> {
  if (Symbol.asyncIterator in source) return source[Symbol.asyncIterator]();
  const iterator = source[Symbol.iterator]();
  return { next: async () => iterator.next() };
}

export async function resumeEvaluation(given: ResumeOptions): Promise<RunSummary> {
  // What a library caller passes is checked here, as runEvaluation checks its options.
  if (typeof given !== 'object' || given === null) {
    throw new ConfigError('config.invalid', 'resumeEvaluation takes one options object', { fix: "pass { runId, dbPath } (or store), e.g. resumeEvaluation({ runId: 'funcgen-...', dbPath: '.toolforge/results.db' })" });
  }
  checkOptionNames('resumeEvaluation', given, resumeOptionNames);
  if (typeof given.runId !== 'string' || given.runId === '') {
    throw new ConfigError('config.invalid', `resumeEvaluation: options.runId must be the id of a stored run, got ${JSON.stringify(given.runId) ?? 'undefined'}`, { fix: "pass runId: an id 'toolforge runs' lists" });
  }
  if (given.tasksFile !== undefined && (typeof given.tasksFile !== 'string' || given.tasksFile === '')) {
    throw new ConfigError('config.invalid', `resumeEvaluation: options.tasksFile must be the path of the run's tasks file, got ${JSON.stringify(given.tasksFile) ?? 'undefined'}`, {
      fix: 'pass where the tasks file the run started with is now, or leave tasksFile out to read it where the run recorded it',
    });
  }
  const options = withWaitBudget(given);
  return withStore(options, async (store) => {
    const { run, suite, model, baseUrl, concurrency } = openStoredRun(store, options, { storingTasks: true });
    const movedTasksFile = options.tasksFile === undefined ? undefined : checkMovedTasksFile(store, run, resolve(options.tasksFile), options.databaseFlag);
    return withRunHeld(store, run.id, 'resumed', async () => {
      store.recordResume(run.id, { at: new Date().toISOString(), baseUrl: baseUrl ?? null, cliArgs: options.cliArgs ?? [] });
      if (!store.hasAllTasks(run.id) && run.provenance.taskRecipe) {
        return resumeStoringTasks(store, store.getRun(run.id), suite, model, checkedRecipe(run, options.databaseFlag), { ...options, concurrency });
      }
      if (!store.hasAllTasks(run.id) && run.provenance.tasksFile) {
        const recorded = checkedTasksFile(run, options.databaseFlag);
        const file = movedTasksFile === undefined ? recorded : { ...recorded, path: movedTasksFile };
        return resumeStoringFileTasks(store, store.getRun(run.id), suite, model, file, { ...options, concurrency });
      }
      await executeRun(store, run, suite, model, { ...options, concurrency });
      return summarizeRun(store, run.id, suite);
    });
  }, { mustExist: true });
}

/**
 * What continuing a stored run needs (a resume, or a worker of a team run): the run, its registered suite at the
 * run's version and its model, with the execution options checked. Its tasks stay in the store (read a page at a
 * time). A run stopped while they were still being written is refused, unless it is being resumed (`storingTasks`)
 * and its recipe can make them again.
 */
export function openStoredRun(store: ResultsStore, options: ResumeOptions, continuing: { storingTasks?: boolean } = {}): {
  run: StoredRun; suite: Suite; model: ModelSource; baseUrl: string | undefined; concurrency: number;
} {
  if (typeof options.runId !== 'string' || options.runId === '') {
    throw new ConfigError('config.invalid', `options.runId must be the id of a stored run, got ${options.runId === '' ? "''" : String(options.runId)}`, {
      fix: "pass runId as 'toolforge runs' lists it, or the runId of runEvaluation's summary",
    });
  }
  const run = store.getRun(options.runId);
  const from = run.provenance.rescoredFrom;
  if (from !== undefined) {
    // Its episodes are another run's, scored again: what it lacks was never run, and the model is not to be called here.
    throw new ConfigError('config.invalid', `run '${run.id}' is a rescore of run '${from}': it holds that run's episodes scored again, so it cannot be continued by calling the model`, {
      fix: `finish run '${from}' (${resumeCommand(store.findRun(from) ?? { ...run, id: from }, options.databaseFlag)}), then rescore it again`,
    });
  }
  const suite = options.suite ?? getSuite(run.suite.id);
  if (suite.version !== run.suite.version) {
    throw new ConfigError('config.invalid', `run '${run.id}' was made with suite ${run.suite.id} version ${run.suite.version}, but this ToolForge has version ${suite.version}; continuing it would mix two gradings`, {
      fix: `start a new run, or continue it with the ToolForge version the run was made with (${run.provenance.toolforgeVersion}${run.provenance.git ? `, commit ${run.provenance.git.commit}` : ''})`,
    });
  }
  const resumable = run.provenance.taskRecipe !== undefined || run.provenance.tasksFile !== undefined;
  if (!store.hasAllTasks(run.id) && !(continuing.storingTasks === true && resumable)) {
    throw new ConfigError('store.invalid', `run '${run.id}' was stopped while its tasks were still being written (${run.taskCount} stored), so it has no complete task list to continue`, {
      fix: resumable
        ? `store the rest of its tasks with '${resumeCommand(run, options.databaseFlag)}' (it runs the missing episodes too)`
        : startAgainFix(run, options.databaseFlag),
    });
  }
  const concurrency = options.concurrency ?? run.concurrency;
  checkPositiveInteger('concurrency', concurrency, '--concurrency <n>');
  checkExecutionOptions(options);
  const baseUrl = options.baseUrl ?? run.baseUrl ?? undefined;
  checkRunAgent(run, options.agent, options.databaseFlag);
  const model = options.agent ?? cached(resolveModelSource(suite, storedModelReference(run), { baseUrl, env: options.env, retry: options.retry, budget: options.waitBudget }), baseUrl, options);
  return { run, suite, model, baseUrl, concurrency };
}

/**
 * The reference a stored run's model is made from again. A replay file is read where it was when the run started,
 * wherever this process runs (a worker or --resume in another folder); if it is no longer there, from the path as typed.
 */
function storedModelReference(run: StoredRun): string {
  const file = run.provenance.modelFile;
  if (file === undefined || !run.model.startsWith('replay/')) return run.model;
  if (existsSync(file)) return `replay/${file}`;
  const typed = run.model.slice('replay/'.length);
  if (existsSync(typed)) return run.model;
  throw new ConfigError('input.unreadable', `run '${run.id}' replays ${file}, which is gone (and there is no ${typed} here either)`, {
    fix: `put the outputs file back at ${file}, or run this command from a folder holding ${typed}`,
  });
}

/** A built-in model (its tasks run as made, run-as-made.ts). */
function isBuiltinModel(model: ModelSource): boolean {
  return model.ref.startsWith('builtin/');
}

/**
 * A built-in or stored-output (replay) model: its episodes are this machine's CPU work, which the task import thread
 * shares out. A provider model's episodes wait on the network, and a run with hundreds in flight needs both cores for
 * its requests: its tasks are written first (a few seconds of a run that lasts minutes), as before. Measured at 256
 * in flight against a 200 ms endpoint: 84.6% of the ideal rate with the import thread beside the requests, 93.3%
 * without. Either run, stopped before its tasks are all stored, is continued by resume from its recipe.
 */
function scoresOnThisMachine(model: ModelSource): boolean {
  const provider = model.ref.slice(0, Math.max(0, model.ref.indexOf('/')));
  return provider === 'builtin' || provider === 'replay';
}

/** The options with the run's one wait budget (see `ExecutionOptions.waitBudget`), made when the caller gave none. */
export function withWaitBudget<Options extends ExecutionOptions>(options: Options, owner = 'run'): Options & { waitBudget: RetryWaitBudget } {
  const waitBudget = options.waitBudget ?? createRetryWaitBudget({ ...defaultRetryPolicy, ...options.retry }, owner);
  return { ...options, waitBudget };
}

/** Built-in and replay models cost nothing to call again: only provider models go through the cache. */
function cached(model: ModelSource, baseUrl: string | undefined, options: ExecutionOptions): ModelSource {
  if (!options.responseCache) return model;
  const provider = parseModelReference(model.ref).provider;
  if (provider === 'builtin' || provider === 'replay') return model;
  return withResponseCache(model, { ...options.responseCache, endpoint: baseUrl });
}

/** `mustExist`: the work adds to a stored run (resume, worker), so a path with no database is an error, not a new file. */
export async function withStore<T>(options: ExecutionOptions, use: (store: ResultsStore) => Promise<T>, { mustExist = false } = {}): Promise<T> {
  if (options.store) return use(options.store);
  const store = openResultsStore(options.dbPath ?? defaultResultsPath, { mustExist });
  try {
    return await use(store);
  } finally {
    store.close();
  }
}

/**
 * A stored-output model (replay) must cover every planned episode, or the user must say that missing outputs
 * are failures: silently scoring them as unparsable would look like a model result. Outputs for tasks that are not
 * in the run are reported, not fatal (a file may cover a larger set).
 */
function checkOutputCoverage(
  model: ModelSource, store: ResultsStore, runId: string, suite: Suite, taskCount: number, trials: number, options: Pick<RunOptions, 'allowMissingOutputs' | 'onProgress'>,
): string[] {
  if (!model.coverage) return [];
  // The planned episodes by task id (all coverage reads), from the stored ids: no task body is loaded.
  const stamp = { id: suite.id, version: suite.version };
  function* planned(): Generator<PlannedTask> {
    for (const id of store.listTaskIds(runId)) yield { task: { id, suite: stamp }, trials };
  }
  const coverage = model.coverage(planned());
  if (coverage.unknownTaskIds.length > 0) {
    const shown = coverage.unknownTaskIds.slice(0, 5).join(', ');
    options.onProgress?.({ type: 'warning', message: `${model.ref}: ${coverage.unknownTaskIds.length} stored outputs name tasks that are not in this run (${shown}${coverage.unknownTaskIds.length > 5 ? ', ...' : ''}); they are ignored` });
  }
  if (coverage.missing.length === 0) return [];
  if (options.allowMissingOutputs !== true) {
    const shown = coverage.missing.slice(0, 5).join(', ');
    // None of the run's tasks, all of the file's for others: the outputs were made for another task set.
    const otherTasks = coverage.missing.length === taskCount && coverage.unknownTaskIds.length > 0;
    throw new ConfigError('input.invalid', `${model.ref} has no output for ${coverage.missing.length} of ${taskCount} tasks (${shown}${coverage.missing.length > 5 ? ', ...' : ''})`, {
      fix: otherTasks
        ? `its outputs are for other tasks (${coverage.unknownTaskIds.slice(0, 3).join(', ')}): run the tasks they were made for (the same --seed and --set values; --set data=<file> for a data set's samples, see toolforge data list; or --tasks <file>)`
        : 'add the missing outputs to the file, run only the tasks it covers (--tasks <file>), or pass --allow-missing to score them as failures',
    });
  }
  options.onProgress?.({ type: 'warning', message: `${model.ref}: ${coverage.missing.length} tasks have no stored output and are scored as failures (--allow-missing)` });
  return coverage.missing;
}

/** The transform chain the tasks share (provenance); tasks with different chains record the first's. */
function transformsOf(first: Task): { id: string; version: string; knobs: JsonObject }[] {
  return (first.origin?.transforms ?? []).map(({ id, version, knobs }) => ({ id, version, knobs }));
}

/** An empty task stream, said in the terms of where it came from: the suite's data file, or a count or tasks file. */
export function noTasksError(suite: Suite, params: JsonObject): ConfigError {
  if (suite.importsTasks?.(params) === true) {
    const data = typeof params.data === 'string' ? ` (--set data=${params.data})` : '';
    return new ConfigError('input.invalid', `the ${suite.id} data file${data} holds no samples, so there are no tasks to run`, {
      fix: `pass a ${suite.id} data file with at least one sample (toolforge data list shows the published sets), or leave --set data out for the suite's own tasks`,
    });
  }
  return new ConfigError('config.invalid', `no tasks to run for suite '${suite.id}'`, { fix: 'pass --count <n> >= 1, or a non-empty --tasks file' });
}

function checkPositiveInteger(name: string, value: number, flag: string): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError('config.invalid', `${name} must be a positive integer, got ${value}`, { fix: `pass ${flag} with n >= 1` });
  }
}

function checkMilliseconds(name: string, value: number, flag: string): void {
  if (!Number.isInteger(value) || value < 1 || value > longestTimerMs) {
    throw new ConfigError('config.invalid', `${name} must be a whole number of ms from 1 to ${longestTimerMs} (24.8 days: a longer timer fires at once), got ${value}`, {
      fix: `pass ${flag} with 1 <= ms <= ${longestTimerMs}`,
    });
  }
}

/**
 * What a library caller passes, checked before anything else reads it: the CLI's flags are checked by its parsers, a
 * caller's object only here. Each field's problem names the field and what to pass.
 */
const modelRefProblem = 'expected a model reference, e.g. builtin/planner or openai/gpt-4.1';
const seedProblem = 'expected the whole number the tasks were made with (their seed), e.g. 0';
const runOptionsSchema = z.object({
  suite: z.custom<Suite>((value) => typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' && Array.isArray((value as { knobs?: unknown }).knobs),
    'expected a suite: getSuite(\'<id>\')'),
  tasks: z.custom<TaskSource>((value) => typeof value === 'object' && value !== null && (Symbol.iterator in value || Symbol.asyncIterator in value),
    'expected the tasks: an array, or an iterable or async iterable of tasks (generateTasks, readTasksFile)'),
  modelRef: z.string({ error: modelRefProblem }).min(1, modelRefProblem),
  seed: z.number({ error: seedProblem }).int(seedProblem),
  params: z.record(z.string(), z.unknown(), 'expected the knob values the tasks were made with: resolveKnobs(suite.id, suite.knobs, {...})'),
  directory: z.string('expected the folder a relative replay file is read from, e.g. process.cwd(), or leave it out').min(1, 'expected a folder, e.g. process.cwd(), or leave it out').optional(),
});

function checkRunOptions(options: RunOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError('config.invalid', 'runEvaluation takes one options object', { fix: 'pass { suite, tasks, modelRef, seed, params, dbPath }' });
  }
  checkOptionNames('runEvaluation', options, runOptionNames);
  // An agent (a process or MCP client under test) names the run itself: modelRef may be its ref.
  const parsed = runOptionsSchema.safeParse(options.agent && options.modelRef === undefined ? { ...options, modelRef: options.agent.ref } : options);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  throw new ConfigError('config.invalid', `runEvaluation: options.${formatFieldPath(issue.path)}: ${issue.message}`, {
    fix: 'pass { suite, tasks, modelRef, seed, params } and dbPath or store, as in the README\'s library example',
  });
}

/** Refuses option names `takes` lacks, each with the names nearest it: every unknown one at once, fixed in one go. */
function checkOptionNames(functionName: string, options: object, takes: Readonly<Record<string, true>>): void {
  const names = Object.keys(takes);
  const unknown = Object.keys(options).filter((name) => !Object.hasOwn(takes, name) && !Object.hasOwn(handedOnOptionNames, name));
  if (unknown.length === 0) return;
  const nearest = unknown.map((name) => ({ name, near: nearestNames(name, names) }));
  const named = nearest.map(({ name, near }) => `'${name}'${near.length > 0 ? ` (did you mean ${near.map((option) => `'${option}'`).join(' or ')}?)` : ''}`);
  const fixes = nearest.map(({ name, near }) => (near.length > 0 ? `rename '${name}' to ${near.map((option) => `'${option}'`).join(' or ')}` : `leave '${name}' out`));
  throw new ConfigError('config.invalid', `${functionName} has no option${unknown.length > 1 ? 's' : ''} ${named.join(', ')}`, {
    fix: `${fixes.join('; ')}. ${functionName} takes: ${names.join(', ')}`,
  });
}

/**
 * The names a misspelling most likely meant: the fewest edits away, within a third of its length (at least 2), and
 * any that start with it (`model` for modelRef). Case is ignored: `Seed` means seed.
 */
function nearestNames(name: string, names: readonly string[]): string[] {
  const lower = name.toLowerCase();
  const withinEdits = Math.max(2, Math.floor(name.length / 3));
  const scored = names.map((option) => ({ option, edits: editDistance(lower, option.toLowerCase()) }))
    .filter(({ option, edits }) => edits <= withinEdits || (lower.length >= 4 && option.toLowerCase().startsWith(lower)));
  return scored.sort((left, right) => left.edits - right.edits).slice(0, 2).map(({ option }) => option);
}

/**
 * The run records `params` as the knobs its tasks were made with: a value the tasks contradict would record a run
 * that its own provenance cannot make again. The first task is compared, as the run records one set of knobs (and the
 * first task's transforms). A knob left out records nothing untrue, so it is not refused (a caller may pass `{}`).
 */
function checkTaskKnobs(suite: Suite, task: Task, params: JsonObject): void {
  for (const knob of suite.knobs) {
    // An imported task leaves the generator's knobs out: nothing of it to compare.
    if (!Object.hasOwn(task.params, knob.name) || !Object.hasOwn(params, knob.name)) continue;
    const given = params[knob.name];
    const made = task.params[knob.name];
    if (isDeepStrictEqual(given, made)) continue;
    // A file given relative to the working folder, recorded by the task as an absolute or portable path.
    if (knob.type === 'string' && knob.path !== undefined && typeof given === 'string' && typeof made === 'string' && sameFile(given, made)) continue;
    // A string knob left at its default may stand for a choice each task makes: nestful's icl 'auto' becomes the
    // task's count of examples, toolbench's group 'all' the query's own group.
    if (given === knob.default && (typeof knob.default === 'string' || knob.default === null)) continue;
    throw new ConfigError('config.invalid', `runEvaluation: options.params.${knob.name} is ${knobValueText(given)}, but the tasks were made with ${knob.name} ${knobValueText(made)} (task '${task.id}'), so the run would record knobs that do not make them`, {
      fix: `pass the tasks' own knobs (params: tasks[0].params), or leave ${knob.name} out, or make the tasks again with ${knob.name} ${knobValueText(given)}`,
    });
  }
}

function knobValueText(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value) ?? String(value);
}

/** What every provider refuses (a negative temperature, top-p past 1) is refused here, once, not as an error per episode. */
const generationSettingsInputSchema = z.object({
  temperature: z.number().finite().min(0).optional(),
  topP: z.number().finite().gt(0).max(1).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  stop: z.array(z.string()).optional(),
  strictTools: z.boolean().optional(),
}).strict();

const settingsFlags: Record<string, string> = { temperature: '--temperature <t> with t >= 0, e.g. 0 or 0.7', maxOutputTokens: '--max-output-tokens <n> with n >= 1' };

function checkGenerationSettings(settings: GenerationSettings): GenerationSettings {
  const parsed = generationSettingsInputSchema.safeParse(settings);
  if (parsed.success) return settings;
  const issue = parsed.error.issues[0];
  const field = formatFieldPath(issue.path) || (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : '');
  throw new ConfigError('config.invalid', `settings.${field}: ${issue.message}`, {
    fix: settingsFlags[field] ? `pass ${settingsFlags[field]}` : 'settings takes temperature (>= 0), topP (0 < p <= 1), maxOutputTokens (>= 1), seed, stop and strictTools',
  });
}

function checkExecutionOptions(options: ExecutionOptions): void {
  const { retry = {}, episodeTimeoutMs } = options;
  if (retry.maxRetries !== undefined && (!Number.isInteger(retry.maxRetries) || retry.maxRetries < 0)) {
    throw new ConfigError('config.invalid', `max retries must be a non-negative integer, got ${retry.maxRetries}`, { fix: 'pass --max-retries <n> with n >= 0' });
  }
  if (retry.maxTotalWaitMs !== undefined && !(retry.maxTotalWaitMs >= 0)) {
    throw new ConfigError('config.invalid', `the run's retry wait budget must be >= 0 ms, got ${retry.maxTotalWaitMs}`, { fix: 'pass --max-retry-wait <ms> with ms >= 0' });
  }
  if (retry.timeoutMs !== undefined) checkMilliseconds('the request timeout', retry.timeoutMs, '--request-timeout <ms>');
  if (episodeTimeoutMs !== undefined) checkMilliseconds('the episode timeout', episodeTimeoutMs, '--episode-timeout <ms>');
  const { stopAfterInfrastructureErrors: stopAfter } = options;
  if (stopAfter !== undefined && !(Number.isInteger(stopAfter) && stopAfter >= 0)) {
    throw new ConfigError('config.invalid', `the number of infrastructure errors in a row that stops a run must be a non-negative integer, got ${stopAfter}`, { fix: 'pass --stop-after-errors <n> with n >= 0 (0: never stop)' });
  }
}

/** Runs every (task, trial) of `run` not yet scored; marks the run finished, cancelled or failed. */
async function executeRun(
  store: ResultsStore,
  run: StoredRun,
  suite: Suite,
  model: ModelSource,
  options: ExecutionOptions & {
    concurrency: number; heldTasks?: readonly Task[]; importing?: TaskImport;
    /** The run's tasks as they are made, each batch stored before its episodes run (run-as-made.ts). */
    madeTasks?: MadeTasks;
    /**
     * Every stored task was checked by this process as it entered the run (a new run): read back, each is trusted.
     * A resumed run's tasks were stored by another process, and the database may have been edited since: each is
     * checked again as it is read, once, as a task entering the run is.
     */
    tasksCheckedHere?: boolean;
  },
): Promise<void> {
  const retry: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const emit: RunProgressListener = options.onProgress ?? (() => {});
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const scoredKeys = new Set(store.listEpisodeKeys(run.id)
    .filter((episode) => episode.status === 'scored')
    .map((episode) => episodeKey(episode.taskId, episode.trial)));
  // The plan is walked lazily over the stored tasks, read a page at a time (or over the caller's array, already
  // held): nothing per episode or task is held beyond a page and the episodes in flight.
  const { importing, madeTasks } = options;
  // While tasks are imported the run's size grows with them; it is reported once they are all stored. A run of tasks
  // as made knows it from its recipe's count, if it has one.
  let totalEpisodes = (importing ? importing.stored() : madeTasks ? madeTasks.expectedCount ?? 0 : run.taskCount) * run.trials;
  let plannedEpisodes = totalEpisodes - scoredKeys.size;
  function* plan(): Generator<{ task: Task; trial: number }> {
    // Held tasks were written in order, ordinal i from tasks[i], and are the run's every task.
    const held = options.heldTasks?.length === run.taskCount ? options.heldTasks : undefined;
    let ordinal = 0;
    for (const read of held ?? store.iterateTasks(run.id)) {
      const task = held ? read : storedTask(read, ordinal);
      ordinal += 1;
      for (let trial = 0; trial < run.trials; trial += 1) if (!scoredKeys.has(episodeKey(task.id, trial))) yield { task, trial };
    }
  }
  /** A task read back from the store: trusted when this process stored it, else checked as one entering the run. */
  const checkStored = createStoredTaskCheck(suite, run);
  const storedTask = (read: Task, ordinal: number): Task => (options.tasksCheckedHere === true ? trustStoredTask(suite, read) : checkStored(read, ordinal));
  /** The plan over tasks still being imported: each page read once it is stored, waiting for the import between. */
  async function* importedPlan(source: TaskImport): AsyncGenerator<{ task: Task; trial: number }> {
    for (let next = 0; ;) {
      const stored = source.stored();
      if (next < stored) {
        const last = Math.min(stored, next + importedPageSize) - 1;
        const page = store.listTasksBetween(run.id, next, last);
        for (; next <= last; next += 1) {
          const read = page.get(next);
          if (!read) throw new ToolForgeError('internal', `run '${run.id}': task ${next} was reported stored but is not in the store`);
          const task = storedTask(read, next);
          for (let trial = 0; trial < run.trials; trial += 1) yield { task, trial };
        }
        continue;
      }
      if (source.finished() !== undefined || signal.aborted) return;
      await untilAborted(source.changed(), signal);
    }
  }
  if (importing) {
    importing.result.then((count) => {
      totalEpisodes = count * run.trials;
      plannedEpisodes = totalEpisodes;
      emit({ type: 'run-planned', runId: run.id, plannedEpisodes, totalEpisodes });
    }, () => {});
  }
  const tasksStreaming = importing !== undefined || (madeTasks !== undefined && madeTasks.expectedCount === undefined);
  emit({ type: 'run-start', runId: run.id, plannedEpisodes, alreadyScoredEpisodes: scoredKeys.size, totalEpisodes, ...(tasksStreaming ? { tasksImporting: true } : {}) });
  store.setRunStatus(run.id, 'running');
  let completed = 0;
  let status: RunStatus = 'finished';
  // The run's one sandbox pool: started by the first code episode, stopped when the run ends.
  const sandbox = createLazySandbox(Math.min(options.concurrency, 2));
  const helperModels = createHelperModelSources({ retry, env: options.env, budget: options.waitBudget });
  // A long run writes its episodes on a second thread (episode-writer.ts); a short one is not worth the thread's start.
  // A run importing its tasks has that thread on the second core already: a third is worth it only for multi-turn
  // episodes (calls, react), whose long transcripts are compressed there. Measured end to end: 20,000 fresh funcgen
  // planner episodes 12.1-12.6 s -> 11.5-11.8 s with it; 17,102 replayed NESTFUL sequences (rows of ~1 KB, not
  // compressed) 4.7 s -> 5.05 s, so one-shot runs go without.
  // An agent's run (serve, --agent-command) is not: serve acknowledges an answer once the store it handed the run has
  // written the episode, which it sees only when the writes go through that store object on this thread.
  // A run of tasks as made has its planned size from its recipe, or at most its count; a data file's length is not known.
  const largestRun = madeTasks ? (madeTasks.atMost ?? Infinity) * run.trials : plannedEpisodes;
  const writeOnThread = options.agent === undefined && largestRun >= writerThreadAfterEpisodes && canWriteOnThread(store)
    && (importing === undefined || multiTurnModes.has(run.mode ?? store.taskFacts(run.id).firstModes[0] ?? 'sequence'));
  const writer = writeOnThread ? startEpisodeWriter(store) : undefined;
  const commits = writer ?? createGroupCommit(store);
  const infrastructureStop = createInfrastructureStop(options.stopAfterInfrastructureErrors ?? defaultInfrastructureStopAfter(options.concurrency), resumeCommand(run, options.databaseFlag));
  try {
    const inFlight = importing || madeTasks ? options.concurrency : Math.min(options.concurrency, Math.max(1, plannedEpisodes));
    const pairs = madeTasks
      ? madeTaskPlan(madeTasks, {
        runId: run.id, trials: run.trials, store: commits, shouldStop: () => signal.aborted,
        onAllMade: (count) => {
          totalEpisodes = count * run.trials;
          plannedEpisodes = totalEpisodes;
          if (madeTasks.expectedCount !== count) emit({ type: 'run-planned', runId: run.id, plannedEpisodes, totalEpisodes });
        },
      })
      : importing ? importedPlan(importing) : plan();
    await forEachWithConcurrency(pairs, inFlight, async ({ task, trial }) => {
      const episode = await attemptEpisode({
        run, suite, task, trial, model, retry, signal, emit, timeLimitMs: options.episodeTimeoutMs, sandbox: () => sandbox.get(), helperModels,
      }).catch((error: unknown) => {
        // Stop the other in-flight episodes now, not when they happen to end.
        stop.abort(error);
        throw error;
      });
      // Cancelled mid-episode: nothing half-done is recorded; resume runs it again.
      if (!episode) return;
      commits.add(episode, task.prompt);
      // A writer thread held up (another process holding the write lock) slows the run rather than letting rows pile up.
      const room = writer?.untilRoom();
      if (room) await room;
      completed += 1;
      emit({
        type: 'episode-end', runId: run.id, taskId: task.id, trial, status: episode.status, passed: episode.score?.passed ?? null,
        attempts: episode.attempts, completedEpisodes: completed, plannedEpisodes,
      });
      const down = infrastructureStop.record(episode);
      // The last planned episode ends the run as any other last episode: a stop is for the episodes not yet run.
      if (down && (importing !== undefined || madeTasks !== undefined || completed < plannedEpisodes)) {
        stop.abort(down);
        throw down;
      }
      // Built-in and replay models never wait on I/O: without this turn of the event loop a Ctrl-C handler
      // would never run, and the run would stay 'running' after the process is killed.
      await yieldToEventLoop();
    }, () => signal.aborted);
    if (signal.aborted) status = 'cancelled';
  } catch (error) {
    status = 'failed';
    throw error;
  } finally {
    // Every ended episode is committed before the run's status says it ended.
    let unwritten: { error: unknown } | undefined;
    try {
      await commits.close();
    } catch (error) {
      // A write that failed (on the writer thread, or group commit's last flush) fails the run: it is marked so,
      // not left 'running', and resume reruns what was not written.
      unwritten = { error };
      status = 'failed';
    } finally {
      await sandbox.dispose();
    }
    store.setRunStatus(run.id, status);
    emit({ type: 'run-end', runId: run.id, status });
    if (unwritten) throw unwritten.error;
  }
}

/** Modes whose episodes take turns with the model: their transcripts are long enough to be compressed. */
const multiTurnModes: ReadonlySet<string> = new Set<Mode>(['calls', 'react']);

/** Planned episodes from which a run writes them on the episode writer thread (its start costs ~50 ms). */
const writerThreadAfterEpisodes = 2048;

/**
 * Tasks read back per page while they are imported: small, because a page's parsed tasks (~50 KB of objects each
 * for NESTFUL) that outlive young-generation collections cost more than the extra queries (measured: 256 -> 32
 * took a 17,102-sample replay from 6.8 s to 6.1 s).
 */
const importedPageSize = 32;

function episodeKey(taskId: string, trial: number): string {
  return `${taskId}\u0000${trial}`;
}

export type AttemptInput = {
  run: StoredRun;
  suite: Suite;
  task: Task;
  trial: number;
  model: ModelSource;
  retry: RetryPolicy;
  signal: AbortSignal;
  emit: RunProgressListener;
  timeLimitMs: number | undefined;
  sandbox: () => Sandbox;
  /** The run's helper models (a suite's simulator or judge), retried on the run's policy. */
  helperModels: HelperModelSources;
};

/** One episode with retries: a record to commit, or undefined when the run was cancelled meanwhile. */
export async function attemptEpisode(input: AttemptInput): Promise<EpisodeRecord | undefined> {
  const { run, suite, task, trial, retry, signal } = input;
  const mode = episodeMode(run.mode, task);
  const startedAt = new Date();
  // Every retry of this episode by cause: its model requests' and its own restarts.
  const retries: Record<string, number> = {};
  const countRetry = (cause: string): void => { retries[cause] = (retries[cause] ?? 0) + 1; };
  type Fields = Pick<EpisodeRecord, 'status' | 'termination' | 'messages' | 'score' | 'usage' | 'error' | 'finalState' | 'calls' | 'warnings' | 'raw'>;
  const record = (fields: Fields, attempts: number): EpisodeRecord => {
    const endedAt = new Date();
    return {
      schemaVersion: 1, runId: run.id, taskId: task.id, model: run.model, mode, trial, ...fields, attempts,
      startedAt: startedAt.toISOString(), endedAt: endedAt.toISOString(), durationMs: endedAt.getTime() - startedAt.getTime(),
      ...(Object.keys(retries).length > 0 ? { retries } : {}),
    };
  };
  const onRequestRetry = (retried: RequestRetry): void => {
    countRetry(retried.cause);
    input.emit({ type: 'request-retry', runId: run.id, taskId: task.id, trial, cause: retried.cause, failedAttempt: retried.failedAttempt, delayMs: retried.delayMs, error: retried.message });
  };
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await runEpisode({
        suite, task, trial, mode, model: input.model, settings: run.settings, signal, sandbox: input.sandbox, keepRaw: run.provenance.keepRaw ?? false,
        timeLimitMs: input.timeLimitMs, onRequestRetry, helperModels: input.helperModels,
      });
      if (signal.aborted) return undefined;
      return record({
        status: 'scored', termination: result.termination, messages: result.messages, score: result.score, usage: result.usage, error: null,
        finalState: result.finalState, calls: result.calls, warnings: result.warnings, ...(result.raw ? { raw: result.raw } : {}),
      }, attempt);
    } catch (error) {
      if (signal.aborted) return undefined;
      // The user's configuration is wrong for every episode alike: stop the run rather than record it N times.
      if (error instanceof ConfigError) throw error;
      if (shouldRestartEpisode(error) && attempt < retry.maxAttempts) {
        const delayMs = retryDelayMs(error, attempt, retry);
        countRetry(error instanceof ToolForgeError ? error.code : 'internal');
        input.emit({ type: 'episode-retry', runId: run.id, taskId: task.id, trial, failedAttempt: attempt, delayMs, error: errorMessage(error) });
        await retry.sleep(delayMs, signal);
        if (signal.aborted) return undefined;
        continue;
      }
      const code = error instanceof ToolForgeError ? error.code : 'internal';
      return record({
        status: 'infrastructure-error', termination: null, messages: [], score: null, usage: emptyUsage, error: { code, message: errorMessage(error) },
        finalState: null, calls: [], warnings: [],
      }, attempt);
    }
  }
}

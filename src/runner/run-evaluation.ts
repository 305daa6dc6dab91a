/**
 * Runs one model on a list of tasks, `trials` times each, with bounded concurrency, committing every
 * episode to the results store the moment it ends. Retryable infrastructure errors are retried with
 * backoff; what still fails is recorded as `infrastructure-error` (never scored) and retried by
 * `resumeEvaluation`, which reruns only missing and infrastructure-error episodes of a stored run.
 */
import type { EpisodeRecord } from '../core/episode.ts';
import { ConfigError, ToolForgeError, errorMessage, isRetryableError } from '../core/errors.ts';
import type { JsonObject } from '../core/json.ts';
import type { Mode } from '../core/mode.ts';
import type { Task } from '../core/task.ts';
import { emptyUsage } from '../core/usage.ts';
import type { GenerationSettings, ModelSource } from '../models/spec.ts';
import { defaultResultsPath, openResultsStore } from '../store/results-store.ts';
import type { ResultsStore } from '../store/results-store.ts';
import { createRunId } from '../store/run-id.ts';
import type { RunStatus, StoredRun } from '../store/stored-run.ts';
import { getSuite } from '../suites/registry.ts';
import type { Suite } from '../suites/spec.ts';
import { forEachWithConcurrency } from './bounded-concurrency.ts';
import { collectProvenance } from './provenance.ts';
import { resolveModelSource } from './resolve-model-source.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { defaultRetryPolicy, retryDelayMs } from './retry-policy.ts';
import { checkSuiteMode, episodeMode } from './episode-mode.ts';
import { createLazySandbox } from './lazy-sandbox.ts';
import { runEpisode } from './run-episode.ts';
import type { Sandbox } from '../sandbox/spec.ts';
import type { RunProgressListener } from './run-progress.ts';
import type { RunSummary } from './summarize-run.ts';
import { summarizeRun } from './summarize-run.ts';

type ExecutionOptions = {
  concurrency?: number;
  onProgress?: RunProgressListener;
  /** Aborting stops the run: in-flight episodes are dropped (nothing half-done is recorded). */
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
  /** An open store to use instead of opening `dbPath` (the caller closes it). */
  store?: ResultsStore;
  /** Default `.toolforge/results.db`. */
  dbPath?: string;
  /** Where provider API keys are read from (default process.env). */
  env?: Record<string, string | undefined>;
};

export type RunOptions = ExecutionOptions & {
  suite: Suite;
  tasks: readonly Task[];
  modelRef: string;
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
  /** Keep every model call's raw vendor request and response with its episode. */
  keepRaw?: boolean;
};

export type ResumeOptions = ExecutionOptions & {
  runId: string;
  /** Default: the registered suite of the run's id (its version must match the run's). */
  suite?: Suite;
  /** Default: the base URL the run was started with. */
  baseUrl?: string;
};

export const defaultConcurrency = 4;

export async function runEvaluation(options: RunOptions): Promise<RunSummary> {
  const { suite, tasks } = options;
  const trials = options.trials ?? 1;
  const concurrency = options.concurrency ?? defaultConcurrency;
  checkPositiveInteger('trials', trials, '--trials <n>');
  checkPositiveInteger('concurrency', concurrency, '--concurrency <n>');
  checkTasks(suite, tasks, options.mode);
  // Resolve the model first: a bad reference or a missing key fails before a run is recorded.
  const model = resolveModelSource(suite, options.modelRef, { baseUrl: options.baseUrl, env: options.env });
  const settings = options.settings ?? {};
  const baseUrl = options.baseUrl ?? null;
  return withStore(options, async (store) => {
    const runId = createRunId(suite.id);
    const mode = options.mode ?? null;
    const provenance = collectProvenance({
      suite, modelRef: options.modelRef, baseUrl, settings, seed: options.seed, params: options.params, mode, trials,
      cliArgs: options.cliArgs ?? [], keepRaw: options.keepRaw ?? false, transforms: transformsOf(tasks),
    });
    const run = store.createRun({
      id: runId, suite: { id: suite.id, version: suite.version }, model: options.modelRef, baseUrl, mode, trials, concurrency,
      seed: options.seed, params: options.params, settings, provenance,
    }, tasks);
    await executeRun(store, run, suite, tasks, model, { ...options, concurrency });
    return summarizeRun(store, runId, suite);
  });
}

export async function resumeEvaluation(options: ResumeOptions): Promise<RunSummary> {
  return withStore(options, async (store) => {
    const run = store.getRun(options.runId);
    const suite = options.suite ?? getSuite(run.suite.id);
    if (suite.version !== run.suite.version) {
      throw new ConfigError('config.invalid', `run '${run.id}' was made with suite ${run.suite.id} version ${run.suite.version}, but this ToolForge has version ${suite.version}; resuming would mix two gradings`, {
        fix: `start a new run, or resume with the ToolForge version the run was made with (${run.provenance.toolforgeVersion}${run.provenance.git ? `, commit ${run.provenance.git.commit}` : ''})`,
      });
    }
    const concurrency = options.concurrency ?? run.concurrency;
    checkPositiveInteger('concurrency', concurrency, '--concurrency <n>');
    const tasks = store.listTasks(run.id);
    const model = resolveModelSource(suite, run.model, { baseUrl: options.baseUrl ?? run.baseUrl ?? undefined, env: options.env });
    await executeRun(store, run, suite, tasks, model, { ...options, concurrency });
    return summarizeRun(store, run.id, suite);
  });
}

async function withStore<T>(options: ExecutionOptions, use: (store: ResultsStore) => Promise<T>): Promise<T> {
  if (options.store) return use(options.store);
  const store = openResultsStore(options.dbPath ?? defaultResultsPath);
  try {
    return await use(store);
  } finally {
    store.close();
  }
}

/** The transform chain the tasks share (provenance); tasks with different chains record the first. */
function transformsOf(tasks: readonly Task[]): { id: string; version: string; knobs: JsonObject }[] {
  return (tasks[0]?.origin?.transforms ?? []).map(({ id, version, knobs }) => ({ id, version, knobs }));
}

function checkPositiveInteger(name: string, value: number, flag: string): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError('config.invalid', `${name} must be a positive integer, got ${value}`, { fix: `pass ${flag} with n >= 1` });
  }
}

function checkTasks(suite: Suite, tasks: readonly Task[], mode: Mode | undefined): void {
  if (tasks.length === 0) {
    throw new ConfigError('config.invalid', `no tasks to run for suite '${suite.id}'`, { fix: 'pass --count <n> >= 1, or a non-empty --tasks file' });
  }
  checkSuiteMode(suite, mode);
  const seen = new Set<string>();
  for (const task of tasks) {
    if (task.suite.id !== suite.id) {
      throw new ConfigError('input.invalid', `task '${task.id}' belongs to suite '${task.suite.id}', not '${suite.id}'`, {
        fix: `run it with 'toolforge run ${task.suite.id}', or pass a tasks file generated for ${suite.id}`,
      });
    }
    if (task.suite.version !== suite.version) {
      throw new ConfigError('input.invalid', `task '${task.id}' was generated by ${suite.id} version ${task.suite.version}, but this suite is version ${suite.version}`, {
        fix: `regenerate the tasks with 'toolforge generate ${suite.id}' (same --seed and --set values)`,
      });
    }
    checkExpected(suite, task);
    if (mode !== undefined && !task.modes.includes(mode)) {
      throw new ConfigError('config.unsupported-mode', `task '${task.id}' does not support mode '${mode}' (it supports ${task.modes.join(', ')})`, {
        fix: `use --mode ${task.modes.join('|')}`,
      });
    }
    if (seen.has(task.id)) {
      throw new ConfigError('input.invalid', `task id '${task.id}' appears twice`, { fix: 'remove the duplicate task from the tasks file' });
    }
    seen.add(task.id);
  }
}

/** The task's ground truth has the suite's shape: checked once, before anything runs, the same for every suite. */
export function checkExpected(suite: Suite, task: Task): void {
  const parsed = suite.expectedSchema.safeParse(task.expected);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const field = ['expected', ...(issue?.path ?? []).map(String)].join('.');
  throw new ConfigError('input.invalid', `task '${task.id}': ${field}: ${issue?.message ?? 'invalid'}`, {
    fix: `regenerate the task with 'toolforge generate ${suite.id}' (this ToolForge's ${suite.id} version ${suite.version})`,
  });
}

/** Runs every (task, trial) of `run` not yet scored; marks the run finished, cancelled or failed. */
async function executeRun(
  store: ResultsStore,
  run: StoredRun,
  suite: Suite,
  tasks: readonly Task[],
  model: ModelSource,
  options: ExecutionOptions & { concurrency: number },
): Promise<void> {
  const retry: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const emit: RunProgressListener = options.onProgress ?? (() => {});
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const scoredKeys = new Set(store.listEpisodeKeys(run.id)
    .filter((episode) => episode.status === 'scored')
    .map((episode) => episodeKey(episode.taskId, episode.trial)));
  const plan = tasks.flatMap((task) => Array.from({ length: run.trials }, (_, trial) => ({ task, trial })))
    .filter((item) => !scoredKeys.has(episodeKey(item.task.id, item.trial)));
  emit({ type: 'run-start', runId: run.id, plannedEpisodes: plan.length, alreadyScoredEpisodes: scoredKeys.size, totalEpisodes: tasks.length * run.trials });
  store.setRunStatus(run.id, 'running');
  let completed = 0;
  let status: RunStatus = 'finished';
  // The run's one sandbox pool: started by the first code episode, stopped when the run ends.
  const sandbox = createLazySandbox(Math.min(options.concurrency, 2));
  try {
    await forEachWithConcurrency(plan, options.concurrency, async ({ task, trial }) => {
      const episode = await attemptEpisode({ run, suite, task, trial, model, retry, signal, emit, sandbox: () => sandbox.get() }).catch((error: unknown) => {
        // Stop the other in-flight episodes now, not when they happen to end.
        stop.abort(error);
        throw error;
      });
      // Cancelled mid-episode: nothing half-done is recorded; resume runs it again.
      if (!episode) return;
      store.saveEpisode(episode);
      completed += 1;
      emit({
        type: 'episode-end', runId: run.id, taskId: task.id, trial, status: episode.status, passed: episode.score?.passed ?? null,
        attempts: episode.attempts, completedEpisodes: completed, plannedEpisodes: plan.length,
      });
    }, () => signal.aborted);
    if (signal.aborted) status = 'cancelled';
  } catch (error) {
    status = 'failed';
    throw error;
  } finally {
    await sandbox.dispose();
    store.setRunStatus(run.id, status);
    emit({ type: 'run-end', runId: run.id, status });
  }
}

function episodeKey(taskId: string, trial: number): string {
  return `${taskId}\u0000${trial}`;
}

type AttemptInput = {
  run: StoredRun;
  suite: Suite;
  task: Task;
  trial: number;
  model: ModelSource;
  retry: RetryPolicy;
  signal: AbortSignal;
  emit: RunProgressListener;
  sandbox: () => Sandbox;
};

/** One episode with retries: a record to commit, or undefined when the run was cancelled meanwhile. */
async function attemptEpisode(input: AttemptInput): Promise<EpisodeRecord | undefined> {
  const { run, suite, task, trial, retry, signal } = input;
  const mode = episodeMode(run.mode, task);
  const startedAt = new Date();
  type Fields = Pick<EpisodeRecord, 'status' | 'termination' | 'messages' | 'score' | 'usage' | 'error' | 'finalState' | 'calls' | 'warnings' | 'raw'>;
  const record = (fields: Fields, attempts: number): EpisodeRecord => {
    const endedAt = new Date();
    return {
      schemaVersion: 1, runId: run.id, taskId: task.id, model: run.model, mode, trial, ...fields, attempts,
      startedAt: startedAt.toISOString(), endedAt: endedAt.toISOString(), durationMs: endedAt.getTime() - startedAt.getTime(),
    };
  };
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await runEpisode({
        suite, task, trial, mode, model: input.model, settings: run.settings, signal, sandbox: input.sandbox, keepRaw: run.provenance.keepRaw ?? false,
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
      if (isRetryableError(error) && attempt < retry.maxAttempts) {
        const delayMs = retryDelayMs(error, attempt, retry);
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

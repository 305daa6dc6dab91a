/**
 * Re-scores a stored run with the current scorer, without calling the model under test: each scored episode's
 * stored messages, end state and call record go through the suite's score() again, and the result is
 * a new run (same tasks, model and settings) whose provenance names the old one (`rescoredFrom`). A scorer that
 * calls a model of its own (toolbench's judge, when its verdict is not cached) has its requests retried as in a run.
 * Episodes that were not scored (infrastructure errors) are copied as they are. The old run is read a page at a
 * time and the new one written in groups (group-commit.ts), so memory does not grow with the run.
 */
import { isCutText } from '../core/cap-text.ts';
import type { EpisodeRecord } from '../core/episode.ts';
import type { Message } from '../core/message.ts';
import { ConfigError, errorMessage, ProviderError, ToolForgeError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import { createHelperModelSources } from '../models/helper-models.ts';
import type { EpisodeRequestHooks } from '../models/spec.ts';
import type { RequestRetryPolicy, RetryWaitBudget } from '../models/request-retry.ts';
import { createRetryWaitBudget, defaultRequestRetryPolicy } from '../models/request-retry.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { TaskRow } from '../store/task-row.ts';
import { taskRow } from '../store/task-row.ts';
import { defaultResultsPath, openResultsStore } from '../store/results-store.ts';
import { withRunHeld } from './run-hold.ts';
import { unusedRunId } from '../store/run-id.ts';
import type { StoredRun } from '../store/stored-run.ts';
import { getSuite } from '../suites/registry.ts';
import type { Suite } from '../suites/spec.ts';
import { createStoredTaskCheck } from './store-tasks.ts';
import { createGroupCommit } from './group-commit.ts';
import { collectProvenance } from './provenance.ts';
import { scoreEpisode } from './run-episode.ts';
import type { RunSummary } from './summarize-run.ts';
import { summarizeRun } from './summarize-run.ts';

export type RescoreOptions = {
  runId: string;
  /** Default: the registered suite of the run's id, as it is now. */
  suite?: Suite;
  store?: ResultsStore;
  dbPath?: string;
  signal?: AbortSignal;
  cliArgs?: string[];
  /** How a scorer's own model requests (toolbench's judge) are retried: `--max-retries`, `--request-timeout`, `--max-retry-wait`. */
  retry?: Partial<RequestRetryPolicy>;
  /** The wait budget those retries draw on (default: one for this rescore). */
  waitBudget?: RetryWaitBudget;
  /** Where a scorer's model reads its API key (default process.env). */
  env?: Record<string, string | undefined>;
};

/** Tasks per transaction when the new run's tasks are copied. */
const taskBatch = 500;

/** `keptScores`: episodes whose stored transcript was cut, so their old score was kept (present when any were). */
export type RescoreSummary = RunSummary & { keptScores?: number };

export async function rescoreRun(options: RescoreOptions): Promise<RescoreSummary> {
  const store = options.store ?? openResultsStore(options.dbPath ?? defaultResultsPath);
  try {
    const old = store.getRun(options.runId);
    // Held while it is read: a run still being run would be copied half-way (its copy would never end), and a delete
    // of it meanwhile would leave a rescore of part of it, stored as finished. Either is refused, naming the holder.
    return await withRunHeld(store, old.id, 'rescored', () => rescoreHeldRun(store, old, options));
  } finally {
    if (!options.store) store.close();
  }
}

async function rescoreHeldRun(store: ResultsStore, old: StoredRun, options: RescoreOptions): Promise<RescoreSummary> {
  const suite = options.suite ?? getSuite(old.suite.id);
  const runId = unusedRunId(store, suite.id);
  const provenance = collectProvenance({
    suite, modelRef: old.model, baseUrl: old.baseUrl, settings: old.settings, seed: old.seed, params: old.params, mode: old.mode,
    trials: old.trials, cliArgs: options.cliArgs ?? [], keepRaw: old.provenance.keepRaw, transforms: old.provenance.transforms, rescoredFrom: old.id,
  });
  store.beginRun({
    id: runId, suite: { id: suite.id, version: suite.version }, model: old.model, baseUrl: old.baseUrl, mode: old.mode, trials: old.trials,
    concurrency: old.concurrency, seed: old.seed, params: old.params, settings: old.settings, provenance,
  });
  // Tasks and episodes are read a page at a time, side by side (episodes come in task order), and the new episodes
  // are written in groups: memory holds a page and a group, whatever the run's size.
  const tasks = store.iterateTasks(old.id)[Symbol.iterator]();
  // The stored tasks are checked as a resumed run checks them: one edited in the database is named, not scored. A
  // task of an older version of the suite is re-scored by the current scorer as it is (what rescore is for).
  const checkStored = createStoredTaskCheck(suite, old);
  let task: Task | undefined;
  let ordinal = -1;
  const taskOf = (taskId: string): Task | undefined => {
    while (task?.id !== taskId) {
      const next = tasks.next();
      if (next.done) return undefined;
      ordinal += 1;
      task = next.value.suite?.version === suite.version ? checkStored(next.value, ordinal) : next.value;
    }
    return task;
  };
  const commit = createGroupCommit(store);
  const helperModels = createHelperModelSources({ retry: options.retry, env: options.env, budget: options.waitBudget ?? createRetryWaitBudget({ ...defaultRequestRetryPolicy, ...options.retry }, 'rescore') });
  let keptScores = 0;
  try {
    copyTasks(store, old.id, runId);
    store.setRunStatus(runId, 'running');
    for (const episode of store.iterateEpisodes(old.id)) {
      options.signal?.throwIfAborted();
      const episodeTask = taskOf(episode.taskId);
      if (!episodeTask) throw new ConfigError('store.invalid', `run '${old.id}' has an episode of task '${episode.taskId}' it does not list`, { fix: 'the results file is damaged; re-import the run' });
      const rescored: EpisodeRecord = { ...episode, runId };
      // A transcript stored cut (a message past textCaps.content) is not what was scored: its score stands, and is counted.
      if (episode.status === 'scored' && episode.termination !== null && hasCutText(episode.messages)) {
        keptScores += 1;
      } else if (episode.status === 'scored' && episode.termination !== null) {
        // The scorer's own requests (the judge) retried now are counted on the episode, beside its run's retries.
        const retries: Record<string, number> = { ...episode.retries };
        const requests: EpisodeRequestHooks = { pauseClock: () => () => {}, onRetry: (retry) => { retries[retry.cause] = (retries[retry.cause] ?? 0) + 1; } };
        try {
          rescored.score = await scoreEpisode(suite, episodeTask, episode.mode, {
            messages: episode.messages, finalState: episode.finalState, termination: episode.termination, calls: episode.calls,
          }, options.signal, helperModels.forEpisode({ task: episodeTask, trial: episode.trial, mode: episode.mode, requests }));
          if (Object.keys(retries).length > 0) rescored.retries = retries;
        } catch (error) {
          throw cannotRescore(`run '${old.id}': episode ${episode.taskId} trial ${episode.trial} cannot be re-scored`, error);
        }
      }
      commit.add(rescored, episodeTask.prompt);
    }
  } catch (error) {
    try {
      commit.close();
    } catch {
      // The first error is the one to report.
    }
    // A rescore cannot be continued (it is made again from the old run): a failed or interrupted one is not kept, so
    // no half-scored copy is listed beside the run it copied. A delete the store fails too (a full disk) leaves it,
    // listed as interrupted with the rescore and delete that replace it; the first error is the one to report.
    try {
      store.deleteRun(runId);
    } catch {
      // Reported by the error below.
    }
    throw error;
  }
  commit.close();
  // A run still 'running' here was killed (a live one is refused above): its copy is an interrupted run, not a live one.
  store.setRunStatus(runId, old.status === 'running' ? 'cancelled' : old.status);
  return { ...summarizeRun(store, runId, suite), ...(keptScores > 0 ? { keptScores } : {}) };
}

/**
 * A scorer that failed. A scorer's model failing after its retries (toolbench's judge), or its configuration (a
 * missing key, judge template or data set), keeps its code and fix; anything else is an episode the scorer cannot
 * read, i.e. one stored before end states and call records were kept.
 */
function cannotRescore(context: string, error: unknown): ToolForgeError {
  if (error instanceof ProviderError || (error instanceof ToolForgeError && /^(config|data)\./.test(error.code))) {
    // A provider's own fix speaks of resuming a run; a rescore is started again instead.
    const cause = error instanceof ProviderError
      ? "the scorer's model failed: rescore again when it answers (--max-retries and --max-retry-wait wait longer for a failing service)"
      : `${error.fix ?? 'fix the cause above'}, then rescore again`;
    const fix = cause;
    return error instanceof ConfigError
      ? new ConfigError(error.code, `${context}: ${error.problem}`, { fix, cause: error })
      : new ToolForgeError(error.code, `${context}: ${error.problem}`, { fix, cause: error });
  }
  return new ConfigError('input.invalid', `${context}: ${errorMessage(error)}`, {
    fix: 'episodes stored before end states and call records were kept (store schema 1) cannot be re-scored: run the model again',
    cause: error,
  });
}

/** The old run's tasks into the new run, in order, a batch per transaction. */
function copyTasks(store: ResultsStore, fromRunId: string, toRunId: string): void {
  let batch: TaskRow[] = [];
  let ordinal = 0;
  const append = (): void => {
    store.appendTasks(toRunId, batch, ordinal);
    ordinal += batch.length;
    batch = [];
  };
  for (const task of store.iterateTasks(fromRunId)) {
    batch.push(taskRow(task));
    if (batch.length === taskBatch) append();
  }
  if (batch.length > 0) append();
  store.completeTasks(toRunId);
}

/** Whether a stored transcript holds text the store cut (textCaps.content): the scorer saw the whole of it. */
function hasCutText(messages: readonly Message[]): boolean {
  return messages.some((message) => {
    switch (message.role) {
      case 'system':
      case 'user': return isCutText(message.content);
      case 'assistant': return isCutText(message.content) || (message.reasoning !== undefined && isCutText(message.reasoning))
        || message.toolCalls.some((call) => isCutText(call.argumentsText));
      case 'tool': return message.result.ok ? typeof message.result.output === 'string' && isCutText(message.result.output) : isCutText(message.result.error.message);
    }
  });
}

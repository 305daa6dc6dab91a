/**
 * The results database: runs, the exact tasks each run used, and one row per episode committed the
 * moment it ends, so a killed run loses at most its in-flight episodes. A scored episode is never
 * overwritten; an infrastructure-error row is replaced by its retry. The embedded default is one SQLite
 * file (WAL); a team shares a PostgreSQL database (`--db postgres://...`) with the same schema.
 */
import type { EpisodeRecord, EpisodeStatus } from '../core/episode.ts';
import { redactUrlPasswords } from '../core/redact-credentials.ts';
import { ConfigError } from '../core/errors.ts';
import type { Message } from '../core/message.ts';
import type { Score } from '../core/score.ts';
import type { Task } from '../core/task.ts';
import type { TaskRow } from './task-row.ts';
import type { SortedValues } from '../metrics/percentile.ts';
import type { EpisodeOutcome, EpisodePage, EpisodeQuery, RunOutcomeCounts } from './episode-query.ts';
import { openPostgresConnection } from './postgres/postgres-connection.ts';
import type { OpenStoreOptions, SqlDialect } from './sql-connection.ts';
import { createSqlResultsStore } from './sql-results-store.ts';
import { openSqliteConnection } from './sqlite-connection.ts';
import type { Provenance, RunStatus, StoredRun } from './stored-run.ts';
import type { TranscriptEncodingOptions } from './transcript-encoding.ts';

export const defaultResultsPath = '.toolforge/results.db';

/** What the runner supplies to start a run; the store adds status, task count and (by default) the time. */
export type NewRun = Omit<StoredRun, 'schemaVersion' | 'status' | 'taskCount' | 'createdAt'> & { createdAt?: string };

/** An episode as its row (see encodeEpisode); saveEpisodes writes it as it would the episode. */
export type EncodedEpisode = { readonly kind: 'encoded-episode'; readonly row: Readonly<Record<string, string | number | null | Buffer>> };

/** An episode outcome and its task's position in the run. */
export type OrderedEpisodeOutcome = { ordinal: number; outcome: EpisodeOutcome };

/** A scored episode's score, with its task's ordinal and its trial: what a run's summary reads of each episode. */
export type OrderedScore = { ordinal: number; trial: number; score: Score };

export type TaskFacts = {
  count: number;
  /** Tasks phrased by a model (stats.phrasing 'model' or 'template-fallback'), and those that fell back. */
  phrased: number;
  phrasingFallbacks: number;
  /** Each task's first mode, once. */
  firstModes: string[];
};

/** An episode a worker holds under a lease (see claimEpisode); `claims` counts every lease it has had. */
export type EpisodeClaim = { taskId: string; trial: number; claims: number };

/** A run's work queue: episodes free to claim, under a live lease, and saved. */
export type EpisodeQueueCounts = { pending: number; leased: number; done: number };

export interface ResultsStore {
  /** The database file (or ':memory:'), or the PostgreSQL address without its password. */
  readonly path: string;
  readonly dialect: SqlDialect;
  /** Records a run and its tasks (in order) in one transaction; status starts as 'running'. */
  createRun(run: NewRun, tasks: readonly Task[]): StoredRun;
  /**
   * Records a run whose tasks follow in batches (appendTasks), so a run of 100,000 tasks never holds them all:
   * until completeTasks it is marked as still having its tasks written (hasAllTasks is false).
   */
  beginRun(run: NewRun): StoredRun;
  /** Adds tasks (rows made by taskRow) at ordinals firstOrdinal, firstOrdinal + 1, ... in one transaction. */
  appendTasks(runId: string, tasks: readonly TaskRow[], firstOrdinal: number): void;
  /** Marks every task of the run as stored; with `provenance`, replaces the run's provenance in the same write. */
  completeTasks(runId: string, provenance?: Provenance): void;
  /** False for a run stopped while its tasks were still being written (beginRun without completeTasks). */
  hasAllTasks(runId: string): boolean;
  findRun(runId: string): StoredRun | undefined;
  /** Throws ConfigError 'store.unknown-run' naming recent runs. */
  getRun(runId: string): StoredRun;
  /** Newest first. */
  listRuns(filter?: { suiteId?: string; limit?: number }): StoredRun[];
  latestRun(filter?: { suiteId?: string }): StoredRun | undefined;
  setRunStatus(runId: string, status: RunStatus): void;
  /** Appends a resume (time, endpoint, command line) to the run's provenance and makes its endpoint current. */
  recordResume(runId: string, resume: { at: string; baseUrl: string | null; cliArgs: string[] }): void;
  /** The run's tasks in their original order. */
  listTasks(runId: string): Task[];
  /** The run's tasks in order, read from the store a page at a time (each iteration reads again): never all at once. */
  iterateTasks(runId: string): Iterable<Task>;
  /**
   * Each task's id, knob values and statistics in order, a page at a time, read out of the stored task by the database
   * (what a report's difficulty levels need): parsing whole tasks for them cost a 100,000-task report 2.4 s.
   */
  iterateTaskParamsAndStats(runId: string): Iterable<Pick<Task, 'id' | 'params' | 'stats'>>;
  /** The tasks at ordinals from..to (inclusive), by ordinal. */
  listTasksBetween(runId: string, fromOrdinal: number, toOrdinal: number): Map<number, Task>;
  /**
   * What a summary needs of the tasks without parsing them: how many, how many were phrased by a model (and how
   * many of those fell back to the template), and each task's default (first) mode, computed by SQL.
   */
  taskFacts(runId: string): TaskFacts;
  /**
   * Commits one episode now. Upserts on (run, task, trial), except that a scored row is never
   * replaced: returns false (and writes nothing) in that case. Retries add up over the rows an
   * episode had (an infrastructure error's retries stay counted after its resumed run is scored).
   * With the episode's `taskPrompt` (the stored task's), the transcript's leading messages equal to it are not
   * stored again; reading the episode takes them from the task (transcript-encoding.ts).
   */
  saveEpisode(episode: EpisodeRecord, taskPrompt?: readonly Message[]): boolean;
  /**
   * Group commit: the episodes in one transaction, each as saveEpisode would write it (one commit for many
   * episodes is what makes replay fast). Returns saveEpisode's answer for each, in order.
   */
  saveEpisodes(episodes: readonly (EpisodeRecord | EncodedEpisode)[]): boolean[];
  /**
   * An episode as the row it will be written as (transcript encoded, JSON columns serialised): what group commit
   * buffers, so an episode's object graph is released the moment it ends instead of surviving into the old heap.
   */
  encodeEpisode(episode: EpisodeRecord, taskPrompt?: readonly Message[], options?: TranscriptEncodingOptions): EncodedEpisode;
  /** In task order, then trial. Holds every transcript: for a run of any size, use iterateEpisodes. */
  listEpisodes(runId: string, filter?: { status?: EpisodeStatus }): EpisodeRecord[];
  /**
   * The same episodes, transcripts and all, in the same order, read a page at a time (keyset, not OFFSET); each
   * iteration reads the store again, so exporting or re-scoring 100,000 episodes holds one page.
   */
  iterateEpisodes(runId: string, filter?: { status?: EpisodeStatus }): Iterable<EpisodeRecord>;
  /** Every episode without its transcript (in task order, then trial): what summaries and reports read. */
  listEpisodeOutcomes(runId: string, filter?: { status?: EpisodeStatus }): EpisodeOutcome[];
  /**
   * The same episodes (of stored tasks) with their task's ordinal, read a page at a time in task order, then trial;
   * each iteration reads the store again, so a summary of 100,000 episodes holds one page.
   */
  iterateEpisodeOutcomes(runId: string, filter?: { status?: EpisodeStatus }): Iterable<OrderedEpisodeOutcome>;
  /**
   * The scores of the scored episodes (of stored tasks), in the same order as iterateEpisodeOutcomes and paged the same
   * way, with nothing else of each row: a summary of 100,000 episodes read their every column (~0.5 s) for the score.
   */
  iterateScores(runId: string): Iterable<OrderedScore>;
  /**
   * The episodes (without transcripts) of the given tasks, in task order, then trial: what a report reads a few tasks
   * at a time when it wants the episodes in an order of its own (the CSV's task id order).
   */
  listEpisodeOutcomesOfTasks(runId: string, taskIds: readonly string[]): EpisodeOutcome[];
  /**
   * The scored episodes' durations (ms) in ascending order, read at chosen ranks from the store (SQL ROW_NUMBER over one
   * sort): exact percentiles of 100,000 episodes without holding their durations.
   */
  sortedScoredDurations(runId: string): SortedValues;
  /** Tokens over the run's episodes (of its stored tasks, every status), summed by SQL. */
  usageTotals(runId: string): { inputTokens: number; outputTokens: number };
  /** One page of episodes (without transcripts) matching a filter, and how many match in all. */
  queryEpisodes(runId: string, query: EpisodeQuery): EpisodePage;
  /** The ids of the tasks with an episode matching a filter (limit and offset ignored), in task order. */
  listMatchingTaskIds(runId: string, query: EpisodeQuery): string[];
  /** One episode with its transcript, or undefined. */
  findEpisode(runId: string, taskId: string, trial: number): EpisodeRecord | undefined;
  /** Every trial of one task, with transcripts. */
  listTaskEpisodes(runId: string, taskId: string): EpisodeRecord[];
  /** One task of a run, or undefined. */
  findTask(runId: string, taskId: string): Task | undefined;
  /** The run's task ids in their original order (no task bodies). */
  listTaskIds(runId: string): string[];
  /** Episode counts by status, passes and failure codes, computed by SQL. */
  countOutcomes(runId: string): RunOutcomeCounts;
  countEpisodes(runId: string): Record<EpisodeStatus, number>;
  /** Scored episodes that passed. */
  countPassedEpisodes(runId: string): number;
  /** The task id of each passed episode (a task appears once per passed trial). */
  listPassedTaskTrials(runId: string): string[];
  /** Retries by cause, summed over the run's stored episodes. */
  countRetries(runId: string): Record<string, number>;
  /** Which (task, trial) pairs have a row and in what status, without loading transcripts. */
  listEpisodeKeys(runId: string): { taskId: string; trial: number; status: EpisodeStatus }[];
  deleteRun(runId: string): void;
  /** JSONL: a run header line, then one line per task, then one per episode (canonical JSON). Holds it all: small runs. */
  exportRun(runId: string): string;
  /**
   * exportRun's lines (without newlines), made one at a time from pages of tasks and episodes: what `toolforge export`
   * writes as they come. An unknown run is refused by the call, before any line.
   */
  iterateExportLines(runId: string): Iterable<string>;
  /** Validates a JSONL export and adds it in one transaction; refuses a run id already present. */
  importRun(jsonl: string, source?: string): StoredRun;
  /**
   * importRun over lines read one at a time (e.g. readLinesSync): each is checked and written as it comes, all in one
   * transaction, so a bad line anywhere (named with `source` and its number) leaves nothing imported.
   */
  /** `checkTask`: what is wrong with an imported task (its suite's checks: ground truth, parts that disagree), or undefined. */
  importRunLines(lines: Iterable<string>, source?: string, options?: { checkTask?: (task: Task) => string | undefined }): StoredRun;
  /**
   * Team runs. Puts every (task, trial) of the run without a scored episode in its work queue, once (episodes done
   * but not scored, i.e. infrastructure errors, are offered again, as a resume would); returns the queue's counts.
   */
  enqueueEpisodes(runId: string): EpisodeQueueCounts;
  /**
   * Leases the next queued episode (task order, then trial) that is neither done nor under a live lease to
   * `workerId` for `leaseMs`; undefined when none is free. An expired lease (a killed worker) is claimed again.
   * Saving the episode ends its lease.
   */
  claimEpisode(runId: string, workerId: string, leaseMs: number): EpisodeClaim | undefined;
  /** Extends every lease the worker holds on the run by `leaseMs` from now. */
  renewLeases(runId: string, workerId: string, leaseMs: number): void;
  queueCounts(runId: string): EpisodeQueueCounts;
  /**
   * Ends the live leases of every worker `isGone` says has ended (a worker killed on this machine), so its episodes are
   * free at once instead of when the leases run out; returns how many were freed.
   */
  releaseGoneWorkers(runId: string, isGone: (workerId: string) => boolean): number;
  /**
   * Takes the run for the process `holder` names until `leaseMs` from now, unless another holds it under a live lease
   * (renewed by holdRun again); returns the other holder then. `isGone` says whether a holder's process is known to
   * have ended (a killed run on this machine is free at once, not when its lease runs out).
   */
  holdRun(runId: string, holder: string, leaseMs: number, isGone: (holder: string) => boolean): RunHold | undefined;
  /** Who holds the run under a live lease, if anyone. */
  runHold(runId: string): RunHold | undefined;
  releaseRun(runId: string, holder: string): void;
  close(): void;
}

/** A process's hold on a run: who (host, pid) and until when (ms since the epoch, on the store's clock). */
export type RunHold = { holder: string; heldUntil: number };

export type { OpenStoreOptions };

/** `postgres://` and `postgresql://` addresses name a PostgreSQL database; anything else is a SQLite file. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Refuses a URL of a database ToolForge does not speak (mysql://, sqlite://, file://): taken as a file path, it would
 * make a folder named after the scheme and a SQLite file in it.
 */
export function checkStoreLocation(location: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1];
  if (scheme === undefined) return;
  if (isPostgresLocation(location)) {
    checkPostgresUrl(location);
    return;
  }
  const path = location.slice(scheme.length + 3);
  throw new ConfigError('config.invalid', `--db ${location}: results are stored in a SQLite file or in PostgreSQL, not at ${scheme}:// URLs`, {
    fix: `pass a file path (e.g. --db ${/^(sqlite3?|file)$/i.test(scheme) && path !== '' ? path : 'results.db'}) or a PostgreSQL URL (--db postgres://user:password@host:port/database)`,
  });
}

/** A PostgreSQL URL the driver would misread (a port that is not a number made it wait forever) is refused. */
function checkPostgresUrl(location: string): void {
  let problem: string | undefined;
  try {
    const url = new URL(location);
    if (url.port !== '' && !/^\d+$/.test(url.port)) problem = `its port '${url.port}' is not a number`;
  } catch {
    problem = 'it is not a well-formed URL (a port that is not a number, or a character that must be percent-encoded)';
  }
  if (problem === undefined) return;
  throw new ConfigError('config.invalid', `--db ${redactUrlPasswords(location)}: ${problem}`, {
    fix: 'pass --db postgres://user:password@host:5432/database, percent-encoding special characters in the user and password (@ is %40, : is %3A, / is %2F)',
  });
}

/**
 * Opens the results store at `location`: a SQLite file path (created with its folder when missing, unless
 * read-only) or a PostgreSQL connection string (its schema created or upgraded on first use).
 */
export function openResultsStore(location: string, options: OpenStoreOptions = {}): ResultsStore {
  checkStoreLocation(location);
  const connection = isPostgresLocation(location) ? openPostgresConnection(location, options) : openSqliteConnection(location, options);
  return createSqlResultsStore(connection);
}



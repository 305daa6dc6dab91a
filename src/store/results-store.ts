/**
 * The results database: one SQLite file (WAL) holding runs, the exact tasks each run used, and one
 * row per episode committed the moment it ends, so a killed run loses at most its in-flight
 * episodes. A scored episode is never overwritten; an infrastructure-error row is replaced by its
 * retry.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { capText, textCaps } from '../core/cap-text.ts';
import type { EpisodeRecord, EpisodeStatus } from '../core/episode.ts';
import { ConfigError, ToolForgeError, errorMessage } from '../core/errors.ts';
import type { AssistantMessage, Message } from '../core/message.ts';
import type { Task } from '../core/task.ts';
import type { EpisodeOutcome, EpisodePage, EpisodeQuery, RunOutcomeCounts } from './episode-query.ts';
import { episodeQuerySql } from './episode-query.ts';
import { exportRunLines, parseRunExport } from './run-jsonl.ts';
import { latestSchemaVersion, migrations } from './store-migrations.ts';
import type { RunStatus, StoredRun } from './stored-run.ts';
import { decodeTranscript, encodeTranscript } from './transcript-encoding.ts';

export const defaultResultsPath = '.toolforge/results.db';

/** What the runner supplies to start a run; the store adds status, task count and (by default) the time. */
export type NewRun = Omit<StoredRun, 'schemaVersion' | 'status' | 'taskCount' | 'createdAt'> & { createdAt?: string };

export interface ResultsStore {
  /** The database file (or ':memory:'). */
  readonly path: string;
  /** Records a run and its tasks (in order) in one transaction; status starts as 'running'. */
  createRun(run: NewRun, tasks: readonly Task[]): StoredRun;
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
  /**
   * Commits one episode now. Upserts on (run, task, trial), except that a scored row is never
   * replaced: returns false (and writes nothing) in that case. Retries add up over the rows an
   * episode had (an infrastructure error's retries stay counted after its resumed run is scored).
   */
  saveEpisode(episode: EpisodeRecord): boolean;
  /**
   * Group commit: the episodes in one transaction, each as saveEpisode would write it (one commit for many
   * episodes is what makes replay fast). Returns saveEpisode's answer for each, in order.
   */
  saveEpisodes(episodes: readonly EpisodeRecord[]): boolean[];
  /** In task order, then trial. */
  listEpisodes(runId: string, filter?: { status?: EpisodeStatus }): EpisodeRecord[];
  /** Every episode without its transcript (in task order, then trial): what summaries and reports read. */
  listEpisodeOutcomes(runId: string, filter?: { status?: EpisodeStatus }): EpisodeOutcome[];
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
  /** JSONL: a run header line, then one line per task, then one per episode (canonical JSON). */
  exportRun(runId: string): string;
  /** Validates a JSONL export and adds it in one transaction; refuses a run id already present. */
  importRun(jsonl: string, source?: string): StoredRun;
  close(): void;
}


type RunRow = {
  id: string; created_at: string; suite_id: string; suite_version: string; model: string; base_url: string | null;
  mode: string | null; trials: number; concurrency: number; seed: number; params: string; settings: string;
  provenance: string; status: string; task_count: number;
};

type EpisodeRow = {
  run_id: string; task_id: string; trial: number; model: string; mode: string; status: string; termination: string | null;
  score: string | null; messages: string | Buffer; messages_encoding: string; input_tokens: number; output_tokens: number; attempts: number;
  started_at: string; ended_at: string; duration_ms: number; error: string | null; retries: string | null; trace: string | null;
};

/** The episode fields kept in the `trace` column (store schema 3). */
type EpisodeTrace = Pick<EpisodeRecord, 'finalState' | 'calls' | 'warnings' | 'raw'>;

export type OpenStoreOptions = {
  /**
   * Open without writing anything (no schema upgrade, no journal-mode change): what `runs`, `report`, `export`
   * and `view` use, so they work on a file the user may not write and never create one.
   */
  readOnly?: boolean;
};

export function openResultsStore(path: string, options: OpenStoreOptions = {}): ResultsStore {
  const isMemory = path === ':memory:';
  const filePath = isMemory ? path : resolve(path);
  const readOnly = options.readOnly === true && !isMemory;
  if (!isMemory) {
    if (existsSync(filePath) && statSync(filePath).isDirectory()) {
      throw invalidStore(filePath, 'it is a directory');
    }
    if (readOnly) {
      if (!existsSync(filePath)) {
        throw new ConfigError('input.unreadable', `no results database at ${filePath}`, {
          fix: "run 'toolforge run <suite> --model <ref>' first, or pass --db <file> to read another database",
        });
      }
    } else {
      prepareDatabaseDirectory(filePath);
    }
  }
  let database: Database.Database | undefined;
  try {
    database = new Database(filePath, readOnly ? { readonly: true, fileMustExist: true } : {});
    database.pragma('busy_timeout = 5000');
    if (readOnly) {
      if (checkSchema(database, filePath) === 'older') {
        // An older file is upgraded once by a writing open (the upgrade keeps every run), then read as usual.
        database.close();
        database = undefined;
        openResultsStore(filePath).close();
        return openResultsStore(filePath, options);
      }
    } else {
      // The first statements read the header: a file that is not SQLite fails here.
      database.pragma('journal_mode = WAL');
      database.pragma('foreign_keys = ON');
      // In WAL mode NORMAL survives a killed process (not a power cut) and keeps commits cheap.
      database.pragma('synchronous = NORMAL');
      migrate(database, filePath);
    }
  } catch (error) {
    database?.close();
    if (error instanceof ToolForgeError) throw error;
    throw describeOpenFailure(filePath, error, readOnly);
  }
  return createStore(database, filePath);
}

/** SQLite's error codes say why a file could not be used; each gets its own message and fix. */
function describeOpenFailure(path: string, error: unknown, readOnly: boolean): ConfigError {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new ConfigError('store.locked', `${path} is locked by another process (${errorMessage(error)})`, {
      fix: 'wait for the other toolforge command using it to finish, or pass --db <other path>',
      cause: error,
    });
  }
  if (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
    return new ConfigError('store.unwritable', `cannot ${readOnly ? 'open' : 'write to'} ${path} (${errorMessage(error)})`, {
      fix: readOnly
        ? `check the permissions of ${path} and its folder (SQLite also needs to read ${path}-wal and ${path}-shm when they exist)`
        : `make ${path} and its folder writable, or pass --db <a writable path>; read-only commands (runs, report, export, view) can still read it`,
      cause: error,
    });
  }
  return invalidStore(path, errorMessage(error), error);
}

/**
 * Creates the database's folder one level at a time, so a path that cannot hold a folder (a file on the way, a
 * read-only or virtual file system such as /proc) fails with a clear error instead of mkdir's recursive mode
 * retrying or throwing a bare errno.
 */
function prepareDatabaseDirectory(filePath: string): void {
  const missing: string[] = [];
  let directory = dirname(filePath);
  while (!existsSync(directory)) {
    missing.unshift(directory);
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  const unusable = (reason: string, cause?: unknown) => new ConfigError('store.unwritable', `cannot create the results database ${filePath}: ${reason}`, {
    fix: 'pass --db <path> in a folder you can write to (the default is .toolforge/results.db in the current folder)',
    cause,
  });
  if (!statSync(directory).isDirectory()) throw unusable(`${directory} is a file, not a folder`);
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      throw unusable(`cannot create the folder ${folder} (${(error as { code?: string }).code ?? errorMessage(error)})`, error);
    }
  }
  if (!existsSync(filePath)) {
    try {
      accessSync(dirname(filePath), constants.W_OK);
    } catch (error) {
      throw unusable(`the folder ${dirname(filePath)} is not writable`, error);
    }
  }
}

function invalidStore(path: string, reason: string, cause?: unknown): ConfigError {
  return new ConfigError('store.invalid', `${path} is not a ToolForge results database: ${reason}`, {
    fix: `pass --db <other path> to use (or create) another results file, or move ${path} aside`,
    cause,
  });
}

/** A read-only open cannot upgrade: the schema must already be the one this ToolForge writes. */
function checkSchema(database: Database.Database, path: string): 'current' | 'older' {
  const tables = (database.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[])
    .map((row) => row.name);
  if (!tables.includes('schema_version')) {
    throw invalidStore(path, tables.length > 0 ? `it holds other tables (${tables.slice(0, 5).join(', ')})` : 'it is empty');
  }
  const current = (database.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: number | null }).version ?? 0;
  if (current > latestSchemaVersion) {
    throw new ConfigError('store.invalid', `${path} has schema version ${current}, newer than this ToolForge understands (${latestSchemaVersion})`, {
      fix: 'upgrade ToolForge, or pass --db <other path>',
    });
  }
  return current < latestSchemaVersion ? 'older' : 'current';
}

/** Checks and upgrades the schema in one IMMEDIATE transaction, so two processes opening a new file do not race. */
function migrate(database: Database.Database, path: string): void {
  database.transaction(() => {
    const tables = (database.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[])
      .map((row) => row.name);
    if (!tables.includes('schema_version')) {
      if (tables.length > 0) throw invalidStore(path, `it holds other tables (${tables.slice(0, 5).join(', ')})`);
      database.exec('CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)');
    }
    const current = (database.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: number | null }).version ?? 0;
    if (current > latestSchemaVersion) {
      throw new ConfigError('store.invalid', `${path} has schema version ${current}, newer than this ToolForge understands (${latestSchemaVersion})`, {
        fix: 'upgrade ToolForge, or pass --db <other path>',
      });
    }
    for (const migration of migrations.filter((candidate) => candidate.version > current)) {
      for (const statement of migration.statements) database.exec(statement);
      database.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(migration.version, new Date().toISOString());
    }
  }).immediate();
}

function createStore(database: Database.Database, path: string): ResultsStore {
  const runColumns = `r.*, (SELECT COUNT(*) FROM run_tasks t WHERE t.run_id = r.id) AS task_count`;
  const statements = {
    insertRun: database.prepare(`INSERT INTO runs (id, created_at, suite_id, suite_version, model, base_url, mode, trials,
      concurrency, seed, params, settings, provenance, status)
      VALUES (@id, @created_at, @suite_id, @suite_version, @model, @base_url, @mode, @trials, @concurrency, @seed, @params,
      @settings, @provenance, @status)`),
    insertTask: database.prepare('INSERT INTO run_tasks (run_id, ordinal, task_id, task) VALUES (?, ?, ?, ?)'),
    findRun: database.prepare(`SELECT ${runColumns} FROM runs r WHERE r.id = ?`),
    listRuns: database.prepare(`SELECT ${runColumns} FROM runs r WHERE (@suite_id IS NULL OR r.suite_id = @suite_id)
      ORDER BY r.created_at DESC, r.rowid DESC LIMIT @limit`),
    setStatus: database.prepare('UPDATE runs SET status = ? WHERE id = ?'),
    setProvenance: database.prepare('UPDATE runs SET provenance = ?, base_url = ? WHERE id = ?'),
    listTasks: database.prepare('SELECT task FROM run_tasks WHERE run_id = ? ORDER BY ordinal'),
    upsertEpisode: database.prepare(`INSERT INTO episodes (run_id, task_id, trial, model, mode, status, termination, passed,
      value, failure, score, messages, messages_encoding, input_tokens, output_tokens, attempts, started_at, ended_at, duration_ms, error, retries, trace)
      VALUES (@run_id, @task_id, @trial, @model, @mode, @status, @termination, @passed, @value, @failure, @score, @messages,
      @messages_encoding, @input_tokens, @output_tokens, @attempts, @started_at, @ended_at, @duration_ms, @error, @retries, @trace)
      ON CONFLICT (run_id, task_id, trial) DO UPDATE SET model = excluded.model, mode = excluded.mode,
        status = excluded.status, termination = excluded.termination, passed = excluded.passed, value = excluded.value,
        failure = excluded.failure, score = excluded.score, messages = excluded.messages,
        messages_encoding = excluded.messages_encoding,
        input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, attempts = excluded.attempts,
        started_at = excluded.started_at, ended_at = excluded.ended_at, duration_ms = excluded.duration_ms,
        error = excluded.error, trace = excluded.trace,
        retries = CASE WHEN episodes.retries IS NULL THEN excluded.retries WHEN excluded.retries IS NULL THEN episodes.retries
          ELSE (SELECT json_group_object(cause, total) FROM (SELECT cause, SUM(count) AS total FROM (
            SELECT key AS cause, value AS count FROM json_each(episodes.retries)
            UNION ALL SELECT key AS cause, value AS count FROM json_each(excluded.retries)) GROUP BY cause ORDER BY cause)) END
      WHERE episodes.status <> 'scored'`),
    listEpisodes: database.prepare(`SELECT e.* FROM episodes e LEFT JOIN run_tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id
      WHERE e.run_id = @run_id AND (@status IS NULL OR e.status = @status) ORDER BY t.ordinal, e.trial`),
    countEpisodes: database.prepare('SELECT status, COUNT(*) AS count FROM episodes WHERE run_id = ? GROUP BY status'),
    countPassed: database.prepare("SELECT COUNT(*) AS count FROM episodes WHERE run_id = ? AND status = 'scored' AND passed = 1"),
    listPassed: database.prepare("SELECT task_id AS taskId FROM episodes WHERE run_id = ? AND status = 'scored' AND passed = 1"),
    countRetries: database.prepare(`SELECT r.key AS cause, SUM(r.value) AS count FROM episodes e, json_each(e.retries) r
      WHERE e.run_id = ? AND e.retries IS NOT NULL GROUP BY r.key ORDER BY r.key`),
    listEpisodeKeys: database.prepare('SELECT task_id AS taskId, trial, status FROM episodes WHERE run_id = ? ORDER BY task_id, trial'),
    listOutcomes: database.prepare(`SELECT ${outcomeColumns('e')} FROM episodes e LEFT JOIN run_tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id
      WHERE e.run_id = @run_id AND (@status IS NULL OR e.status = @status) ORDER BY t.ordinal, e.trial`),
    findEpisode: database.prepare('SELECT * FROM episodes WHERE run_id = ? AND task_id = ? AND trial = ?'),
    listTaskEpisodes: database.prepare('SELECT * FROM episodes WHERE run_id = ? AND task_id = ? ORDER BY trial'),
    findTask: database.prepare('SELECT task FROM run_tasks WHERE run_id = ? AND task_id = ?'),
    listTaskIds: database.prepare('SELECT task_id AS taskId FROM run_tasks WHERE run_id = ? ORDER BY ordinal'),
    countOutcomes: database.prepare(`SELECT status, passed, failure, COUNT(*) AS count FROM episodes WHERE run_id = ?
      GROUP BY status, passed, failure`),
    deleteRun: database.prepare('DELETE FROM runs WHERE id = ?'),
  };
  // A page query's SQL depends on which filters are present; each shape is prepared once.
  const pageStatements = new Map<string, { count: Database.Statement; page: Database.Statement; taskIds: Database.Statement }>();
  const preparePage = (query: EpisodeQuery) => {
    const sql = episodeQuerySql(query, outcomeColumns('e'));
    let prepared = pageStatements.get(sql.key);
    if (!prepared) {
      prepared = { count: database.prepare(sql.count), page: database.prepare(sql.page), taskIds: database.prepare(sql.taskIds) };
      pageStatements.set(sql.key, prepared);
    }
    return { sql, prepared };
  };

  const findRun = (runId: string): StoredRun | undefined => {
    const row = statements.findRun.get(runId) as RunRow | undefined;
    return row ? runFromRow(row) : undefined;
  };
  const listRuns = (filter: { suiteId?: string; limit?: number } = {}): StoredRun[] =>
    (statements.listRuns.all({ suite_id: filter.suiteId ?? null, limit: filter.limit ?? -1 }) as RunRow[]).map(runFromRow);
  const getRun = (runId: string): StoredRun => {
    const run = findRun(runId);
    if (run) return run;
    const recent = listRuns({ limit: 5 }).map((candidate) => candidate.id);
    throw new ConfigError('store.unknown-run', `no run '${runId}' in ${path}`, {
      fix: recent.length > 0 ? `use one of the recent runs: ${recent.join(', ')} (or pass the right --db)` : `${path} has no runs yet: start one with 'toolforge run', or pass the right --db`,
    });
  };
  const createRun = (run: NewRun, tasks: readonly Task[]): StoredRun => {
    database.transaction(() => {
      statements.insertRun.run({
        id: run.id,
        created_at: run.createdAt ?? new Date().toISOString(),
        suite_id: run.suite.id,
        suite_version: run.suite.version,
        model: run.model,
        base_url: run.baseUrl,
        mode: run.mode,
        trials: run.trials,
        concurrency: run.concurrency,
        seed: run.seed,
        params: JSON.stringify(run.params),
        settings: JSON.stringify(run.settings),
        provenance: JSON.stringify(run.provenance),
        status: 'running',
      });
      tasks.forEach((task, ordinal) => statements.insertTask.run(run.id, ordinal, task.id, JSON.stringify(task)));
    })();
    return getRun(run.id);
  };
  const saveEpisode = (episode: EpisodeRecord): boolean => statements.upsertEpisode.run(episodeToRow(episode)).changes > 0;
  const saveEpisodes = database.transaction((episodes: readonly EpisodeRecord[]): boolean[] => episodes.map(saveEpisode));
  const listEpisodes = (runId: string, filter: { status?: EpisodeStatus } = {}): EpisodeRecord[] =>
    (statements.listEpisodes.all({ run_id: runId, status: filter.status ?? null }) as EpisodeRow[]).map(episodeFromRow);
  const listTasks = (runId: string): Task[] =>
    (statements.listTasks.all(runId) as { task: string }[]).map((row) => JSON.parse(row.task) as Task);

  return {
    path,
    createRun,
    findRun,
    getRun,
    listRuns,
    latestRun: (filter = {}) => listRuns({ ...filter, limit: 1 })[0],
    setRunStatus(runId, status) {
      if (statements.setStatus.run(status, runId).changes === 0) getRun(runId);
    },
    recordResume(runId, resume) {
      const run = getRun(runId);
      const provenance = { ...run.provenance, resumes: [...(run.provenance.resumes ?? []), resume] };
      statements.setProvenance.run(JSON.stringify(provenance), resume.baseUrl, runId);
    },
    listTasks,
    saveEpisode,
    saveEpisodes: (episodes) => saveEpisodes(episodes),
    listEpisodes,
    countEpisodes(runId) {
      const counts: Record<EpisodeStatus, number> = { scored: 0, 'infrastructure-error': 0, cancelled: 0 };
      for (const row of statements.countEpisodes.all(runId) as { status: EpisodeStatus; count: number }[]) counts[row.status] = row.count;
      return counts;
    },
    countPassedEpisodes: (runId) => (statements.countPassed.get(runId) as { count: number }).count,
    listPassedTaskTrials: (runId) => (statements.listPassed.all(runId) as { taskId: string }[]).map((row) => row.taskId),
    countRetries(runId) {
      const counts: Record<string, number> = {};
      for (const row of statements.countRetries.all(runId) as { cause: string; count: number }[]) counts[row.cause] = row.count;
      return counts;
    },
    listEpisodeOutcomes: (runId, filter = {}) =>
      (statements.listOutcomes.all({ run_id: runId, status: filter.status ?? null }) as EpisodeRow[]).map(outcomeFromRow),
    queryEpisodes(runId, query) {
      const { sql, prepared } = preparePage(query);
      const parameters: Record<string, string | number> = { ...sql.parameters, run_id: runId };
      const { limit: _limit, offset: _offset, ...filterParameters } = parameters;
      const total = (prepared.count.get(filterParameters) as { count: number }).count;
      const episodes = (prepared.page.all(parameters) as EpisodeRow[]).map(outcomeFromRow);
      return { total, offset: sql.offset, limit: sql.limit, episodes };
    },
    listMatchingTaskIds(runId, query) {
      const { sql, prepared } = preparePage({ ...query, limit: undefined, offset: undefined });
      const { limit: _limit, offset: _offset, ...parameters } = sql.parameters;
      return (prepared.taskIds.all({ ...parameters, run_id: runId }) as { taskId: string }[]).map((row) => row.taskId);
    },
    findEpisode(runId, taskId, trial) {
      const row = statements.findEpisode.get(runId, taskId, trial) as EpisodeRow | undefined;
      return row ? episodeFromRow(row) : undefined;
    },
    listTaskEpisodes: (runId, taskId) => (statements.listTaskEpisodes.all(runId, taskId) as EpisodeRow[]).map(episodeFromRow),
    findTask(runId, taskId) {
      const row = statements.findTask.get(runId, taskId) as { task: string } | undefined;
      return row ? (JSON.parse(row.task) as Task) : undefined;
    },
    listTaskIds: (runId) => (statements.listTaskIds.all(runId) as { taskId: string }[]).map((row) => row.taskId),
    countOutcomes(runId) {
      const counts: RunOutcomeCounts = { scored: 0, passed: 0, infrastructureErrors: 0, cancelled: 0, failures: {} };
      for (const row of statements.countOutcomes.all(runId) as { status: EpisodeStatus; passed: number | null; failure: string | null; count: number }[]) {
        if (row.status === 'infrastructure-error') counts.infrastructureErrors += row.count;
        else if (row.status === 'cancelled') counts.cancelled += row.count;
        else {
          counts.scored += row.count;
          if (row.passed === 1) counts.passed += row.count;
          else {
            const code = row.failure ?? 'result.wrong';
            counts.failures[code] = (counts.failures[code] ?? 0) + row.count;
          }
        }
      }
      return counts;
    },
    listEpisodeKeys: (runId) => statements.listEpisodeKeys.all(runId) as { taskId: string; trial: number; status: EpisodeStatus }[],
    deleteRun(runId) {
      if (statements.deleteRun.run(runId).changes === 0) getRun(runId);
    },
    exportRun(runId) {
      const run = getRun(runId);
      return exportRunLines(run, listTasks(runId), listEpisodes(runId)).join('\n') + '\n';
    },
    importRun(jsonl, source = 'import') {
      const parsed = parseRunExport(jsonl, source);
      if (findRun(parsed.run.id)) {
        throw new ConfigError('input.invalid', `${source}: run '${parsed.run.id}' is already in ${path}; importing it again would duplicate its episodes`, {
          fix: `import into another results file with --db <other path>, or delete the run first`,
        });
      }
      database.transaction(() => {
        createRun(parsed.run, parsed.tasks);
        statements.setStatus.run(parsed.run.status, parsed.run.id);
        for (const episode of parsed.episodes) saveEpisode(episode);
      })();
      return getRun(parsed.run.id);
    },
    close() {
      database.close();
    },
  };
}

function runFromRow(row: RunRow): StoredRun {
  return {
    schemaVersion: 1,
    id: row.id,
    createdAt: row.created_at,
    suite: { id: row.suite_id, version: row.suite_version },
    model: row.model,
    baseUrl: row.base_url,
    mode: row.mode as StoredRun['mode'],
    trials: row.trials,
    concurrency: row.concurrency,
    seed: row.seed,
    params: JSON.parse(row.params) as StoredRun['params'],
    settings: JSON.parse(row.settings) as StoredRun['settings'],
    provenance: JSON.parse(row.provenance) as StoredRun['provenance'],
    status: row.status as RunStatus,
    taskCount: row.task_count,
  };
}

function transcriptColumns(episode: EpisodeRecord): { messages: string | Buffer; messages_encoding: string } {
  const encoded = encodeTranscript(episode.messages.map(capMessageText));
  return { messages: encoded.data, messages_encoding: encoded.encoding };
}

/** Every episode column but the transcript. */
function outcomeColumns(alias: string): string {
  return ['run_id', 'task_id', 'trial', 'model', 'mode', 'status', 'termination', 'score', 'input_tokens', 'output_tokens',
    'attempts', 'started_at', 'ended_at', 'duration_ms', 'error', 'retries'].map((column) => `${alias}.${column}`).join(', ');
}

function episodeToRow(episode: EpisodeRecord): Record<string, string | number | null | Buffer> {
  return {
    run_id: episode.runId,
    task_id: episode.taskId,
    trial: episode.trial,
    model: episode.model,
    mode: episode.mode,
    status: episode.status,
    termination: episode.termination,
    passed: episode.score ? (episode.score.passed ? 1 : 0) : null,
    value: episode.score ? episode.score.value : null,
    failure: episode.score?.failure ?? null,
    score: episode.score ? JSON.stringify({ ...episode.score, reason: capText(episode.score.reason, textCaps.message) }) : null,
    ...transcriptColumns(episode),
    input_tokens: episode.usage.inputTokens,
    output_tokens: episode.usage.outputTokens,
    attempts: episode.attempts,
    started_at: episode.startedAt,
    ended_at: episode.endedAt,
    duration_ms: Math.round(episode.durationMs),
    error: episode.error ? JSON.stringify(episode.error) : null,
    retries: episode.retries && Object.keys(episode.retries).length > 0 ? JSON.stringify(episode.retries) : null,
    trace: JSON.stringify({
      finalState: episode.finalState, calls: episode.calls, warnings: episode.warnings, ...(episode.raw ? { raw: episode.raw } : {}),
    } satisfies EpisodeTrace),
  };
}

/**
 * Text a model or a program controls is capped when stored (src/core/cap-text.ts), so one huge output cannot
 * grow the results file: contents, reasoning, tool-call argument text, tool outputs and error messages.
 */
function capMessageText(message: Message): Message {
  const cap = (text: string): string => capText(text, textCaps.content);
  switch (message.role) {
    case 'system':
    case 'user':
      return { ...message, content: cap(message.content) };
    case 'assistant': {
      const capped: AssistantMessage = {
        ...message,
        content: cap(message.content),
        toolCalls: message.toolCalls.map((call) => (call.argumentsText.length > textCaps.content
          ? { ...call, argumentsText: cap(call.argumentsText), arguments: undefined }
          : call)),
      };
      if (message.reasoning !== undefined) capped.reasoning = cap(message.reasoning);
      return capped;
    }
    case 'tool': {
      const { result } = message;
      if (!result.ok) return { ...message, result: { ok: false, error: { ...result.error, message: cap(result.error.message) } } };
      const text = typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
      return text.length > textCaps.content ? { ...message, result: { ok: true, output: cap(text) } } : message;
    }
  }
}

function episodeFromRow(row: EpisodeRow): EpisodeRecord {
  const { schemaVersion, ...outcome } = outcomeFromRow(row);
  return {
    schemaVersion, ...outcome, messages: decodeTranscript(row.messages_encoding, row.messages),
    // Episodes stored before schema 3 have no trace.
    ...(row.trace === null ? { finalState: null, calls: [], warnings: [] } : (JSON.parse(row.trace) as EpisodeTrace)),
  };
}

function outcomeFromRow(row: Omit<EpisodeRow, 'messages' | 'messages_encoding' | 'trace'>): EpisodeOutcome {
  return {
    schemaVersion: 1,
    runId: row.run_id,
    taskId: row.task_id,
    model: row.model,
    mode: row.mode as EpisodeRecord['mode'],
    trial: row.trial,
    status: row.status as EpisodeStatus,
    termination: row.termination as EpisodeRecord['termination'],
    score: row.score === null ? null : (JSON.parse(row.score) as EpisodeRecord['score']),
    usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens },
    attempts: row.attempts,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    durationMs: row.duration_ms,
    error: row.error === null ? null : (JSON.parse(row.error) as EpisodeRecord['error']),
    ...(row.retries ? { retries: JSON.parse(row.retries) as Record<string, number> } : {}),
  };
}

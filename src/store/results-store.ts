/**
 * The results database: one SQLite file (WAL) holding runs, the exact tasks each run used, and one
 * row per episode committed the moment it ends, so a killed run loses at most its in-flight
 * episodes. A scored episode is never overwritten; an infrastructure-error row is replaced by its
 * retry.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { EpisodeRecord, EpisodeStatus } from '../core/episode.ts';
import { ConfigError, ToolForgeError, errorMessage } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import { exportRunLines, parseRunExport } from './run-jsonl.ts';
import { latestSchemaVersion, migrations } from './store-migrations.ts';
import type { RunStatus, StoredRun } from './stored-run.ts';

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
  /** The run's tasks in their original order. */
  listTasks(runId: string): Task[];
  /**
   * Commits one episode now. Upserts on (run, task, trial), except that a scored row is never
   * replaced: returns false (and writes nothing) in that case.
   */
  saveEpisode(episode: EpisodeRecord): boolean;
  /** In task order, then trial. */
  listEpisodes(runId: string, filter?: { status?: EpisodeStatus }): EpisodeRecord[];
  countEpisodes(runId: string): Record<EpisodeStatus, number>;
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
  score: string | null; messages: string; input_tokens: number; output_tokens: number; attempts: number;
  started_at: string; ended_at: string; duration_ms: number; error: string | null; trace: string | null;
};

/** The episode fields kept in the `trace` column (store schema 2). */
type EpisodeTrace = Pick<EpisodeRecord, 'finalState' | 'calls' | 'warnings' | 'raw'>;

export function openResultsStore(path: string): ResultsStore {
  const isMemory = path === ':memory:';
  const filePath = isMemory ? path : resolve(path);
  if (!isMemory) {
    if (existsSync(filePath) && statSync(filePath).isDirectory()) {
      throw invalidStore(filePath, 'it is a directory');
    }
    mkdirSync(dirname(filePath), { recursive: true });
  }
  let database: Database.Database | undefined;
  try {
    database = new Database(filePath);
    // The first statements read the header: a file that is not SQLite fails here.
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    // In WAL mode NORMAL survives a killed process (not a power cut) and keeps commits cheap.
    database.pragma('synchronous = NORMAL');
    migrate(database, filePath);
  } catch (error) {
    database?.close();
    if (error instanceof ToolForgeError) throw error;
    throw invalidStore(filePath, errorMessage(error), error);
  }
  return createStore(database, filePath);
}

function invalidStore(path: string, reason: string, cause?: unknown): ConfigError {
  return new ConfigError('store.invalid', `${path} is not a ToolForge results database: ${reason}`, {
    fix: `pass --db <other path> to use (or create) another results file, or move ${path} aside`,
    cause,
  });
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
    listTasks: database.prepare('SELECT task FROM run_tasks WHERE run_id = ? ORDER BY ordinal'),
    upsertEpisode: database.prepare(`INSERT INTO episodes (run_id, task_id, trial, model, mode, status, termination, passed,
      value, failure, score, messages, input_tokens, output_tokens, attempts, started_at, ended_at, duration_ms, error, trace)
      VALUES (@run_id, @task_id, @trial, @model, @mode, @status, @termination, @passed, @value, @failure, @score, @messages,
      @input_tokens, @output_tokens, @attempts, @started_at, @ended_at, @duration_ms, @error, @trace)
      ON CONFLICT (run_id, task_id, trial) DO UPDATE SET model = excluded.model, mode = excluded.mode,
        status = excluded.status, termination = excluded.termination, passed = excluded.passed, value = excluded.value,
        failure = excluded.failure, score = excluded.score, messages = excluded.messages,
        input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, attempts = excluded.attempts,
        started_at = excluded.started_at, ended_at = excluded.ended_at, duration_ms = excluded.duration_ms,
        error = excluded.error, trace = excluded.trace
      WHERE episodes.status <> 'scored'`),
    listEpisodes: database.prepare(`SELECT e.* FROM episodes e LEFT JOIN run_tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id
      WHERE e.run_id = @run_id AND (@status IS NULL OR e.status = @status) ORDER BY t.ordinal, e.trial`),
    countEpisodes: database.prepare('SELECT status, COUNT(*) AS count FROM episodes WHERE run_id = ? GROUP BY status'),
    listEpisodeKeys: database.prepare('SELECT task_id AS taskId, trial, status FROM episodes WHERE run_id = ? ORDER BY task_id, trial'),
    deleteRun: database.prepare('DELETE FROM runs WHERE id = ?'),
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
    listTasks,
    saveEpisode,
    listEpisodes,
    countEpisodes(runId) {
      const counts: Record<EpisodeStatus, number> = { scored: 0, 'infrastructure-error': 0, cancelled: 0 };
      for (const row of statements.countEpisodes.all(runId) as { status: EpisodeStatus; count: number }[]) counts[row.status] = row.count;
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

function episodeToRow(episode: EpisodeRecord): Record<string, string | number | null> {
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
    score: episode.score ? JSON.stringify(episode.score) : null,
    messages: JSON.stringify(episode.messages),
    input_tokens: episode.usage.inputTokens,
    output_tokens: episode.usage.outputTokens,
    attempts: episode.attempts,
    started_at: episode.startedAt,
    ended_at: episode.endedAt,
    duration_ms: Math.round(episode.durationMs),
    error: episode.error ? JSON.stringify(episode.error) : null,
    trace: JSON.stringify({
      finalState: episode.finalState, calls: episode.calls, warnings: episode.warnings, ...(episode.raw ? { raw: episode.raw } : {}),
    } satisfies EpisodeTrace),
  };
}

function episodeFromRow(row: EpisodeRow): EpisodeRecord {
  return {
    schemaVersion: 1,
    runId: row.run_id,
    taskId: row.task_id,
    model: row.model,
    mode: row.mode as EpisodeRecord['mode'],
    trial: row.trial,
    status: row.status as EpisodeStatus,
    termination: row.termination as EpisodeRecord['termination'],
    messages: JSON.parse(row.messages) as EpisodeRecord['messages'],
    score: row.score === null ? null : (JSON.parse(row.score) as EpisodeRecord['score']),
    usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens },
    attempts: row.attempts,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    durationMs: row.duration_ms,
    error: row.error === null ? null : (JSON.parse(row.error) as EpisodeRecord['error']),
    // Episodes stored before schema 2 have no trace.
    ...(row.trace === null ? { finalState: null, calls: [], warnings: [] } : (JSON.parse(row.trace) as EpisodeTrace)),
  };
}

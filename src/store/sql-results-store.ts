/**
 * The results store over any SqlConnection (SQLite file or PostgreSQL server): the same tables, the same
 * statements but for the few places where the dialects differ (JSON functions, row order, globs), and the same
 * rules: a scored episode is never overwritten, an infrastructure-error row is replaced by its retry, retries add up.
 */
import type { EpisodeRecord, EpisodeStatus } from '../core/episode.ts';
import { ConfigError, ToolForgeError } from '../core/errors.ts';
import type { Message } from '../core/message.ts';
import type { JsonObject } from '../core/json.ts';
import type { Score } from '../core/score.ts';
import type { Task } from '../core/task.ts';
import type { EpisodeRow, RunRow } from './episode-rows.ts';
import { episodeFromRow, episodeToRow, outcomeColumns, outcomeFromRow, runFromRow } from './episode-rows.ts';
import type { EpisodeQuery, RunOutcomeCounts } from './episode-query.ts';
import { episodeQuerySql } from './episode-query.ts';
import type { EncodedEpisode, EpisodeClaim, EpisodeQueueCounts, NewRun, OrderedEpisodeOutcome, OrderedScore, ResultsStore, RunHold, TaskFacts } from './results-store.ts';
import { readRunExport, runExportLines } from './run-jsonl.ts';
import type { SqlConnection } from './sql-connection.ts';
import type { Provenance, StoredRun } from './stored-run.ts';
import { parseStoredJson, parseStoredTask } from './stored-json.ts';
import type { TaskRow } from './task-row.ts';
import { taskRow } from './task-row.ts';
import { shellArgument } from '../core/shell-argument.ts';
import type { StoredTaskRow } from './stored-json.ts';
import type { TranscriptEncodingOptions } from './transcript-encoding.ts';

/** Rows per read when a run's tasks or episodes are streamed: memory stays at one page whatever the run's size. */
const taskPageSize = 256;
const episodePageSize = 1000;
/** Episodes with their transcripts (a few KB each, decoded): a page stays near a megabyte. */
const fullEpisodePageSize = 250;

const runColumns = `r.*, (SELECT COUNT(*) FROM run_tasks t WHERE t.run_id = r.id) AS task_count`;
const episodeJoin = 'FROM episodes e LEFT JOIN run_tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id';
/** Every episode column, and the task's JSON when the transcript starts with its prompt (read only then). */
const fullEpisodeColumns = 'e.*, CASE WHEN e.prompt_messages > 0 THEN t.task END AS prompt_task';

/** Retries of the replaced row and of its retry, summed per cause (JSON objects in text columns). */
function mergedRetries(connection: SqlConnection): string {
  if (connection.dialect === 'postgres') {
    return `(SELECT jsonb_object_agg(cause, total)::text FROM (SELECT cause, SUM(count) AS total FROM (
        SELECT key AS cause, value::bigint AS count FROM jsonb_each_text(episodes.retries::jsonb)
        UNION ALL SELECT key AS cause, value::bigint AS count FROM jsonb_each_text(excluded.retries::jsonb)) AS both_rows
        GROUP BY cause ORDER BY cause) AS totals)`;
  }
  return `(SELECT json_group_object(cause, total) FROM (SELECT cause, SUM(count) AS total FROM (
        SELECT key AS cause, value AS count FROM json_each(episodes.retries)
        UNION ALL SELECT key AS cause, value AS count FROM json_each(excluded.retries)) GROUP BY cause ORDER BY cause))`;
}

export function createSqlResultsStore(connection: SqlConnection): ResultsStore {
  const { location } = connection;
  const postgres = connection.dialect === 'postgres';
  const sql = {
    insertRun: `INSERT INTO runs (id, created_at, suite_id, suite_version, model, base_url, mode, trials,
      concurrency, seed, params, settings, provenance, status)
      VALUES (@id, @created_at, @suite_id, @suite_version, @model, @base_url, @mode, @trials, @concurrency, @seed, @params,
      @settings, @provenance, @status)`,
    insertTask: `INSERT INTO run_tasks (run_id, ordinal, task_id, task, phrasing, first_mode)
      VALUES (@run_id, @ordinal, @task_id, @task, @phrasing, @first_mode)`,
    setTasksComplete: 'UPDATE runs SET tasks_complete = @complete WHERE id = @id',
    setRunProvenance: 'UPDATE runs SET provenance = @provenance WHERE id = @id',
    tasksComplete: 'SELECT tasks_complete AS complete FROM runs WHERE id = @id',
    taskPage: 'SELECT ordinal, task_id, task FROM run_tasks WHERE run_id = @run_id AND ordinal > @after ORDER BY ordinal LIMIT @limit',
    taskParamsAndStatsPage: `SELECT ordinal, task_id, ${postgres ? "task::json ->> 'params'" : "json_extract(task, '$.params')"} AS params,
        ${postgres ? "task::json ->> 'stats'" : "json_extract(task, '$.stats')"} AS stats
      FROM run_tasks WHERE run_id = @run_id AND ordinal > @after ORDER BY ordinal LIMIT @limit`,
    tasksBetween: 'SELECT ordinal, task_id, task FROM run_tasks WHERE run_id = @run_id AND ordinal >= @from AND ordinal <= @to ORDER BY ordinal',
    // Keyset paging in (ordinal, trial) order: each page starts where the last ended, without OFFSET's rescans.
    outcomePage: `SELECT ${outcomeColumns('e')}, t.ordinal AS ordinal FROM run_tasks t JOIN episodes e ON e.run_id = t.run_id AND e.task_id = t.task_id
      WHERE t.run_id = @run_id AND t.ordinal >= @ordinal AND (t.ordinal > @ordinal OR e.trial > @trial)
        AND (CAST(@status AS TEXT) IS NULL OR e.status = @status)
      ORDER BY t.ordinal, e.trial LIMIT @limit`,
    // The same keyset paging over scored episodes, with only what a run's summary reads of each.
    scorePage: `SELECT t.ordinal AS ordinal, e.trial AS trial, e.score AS score, e.task_id AS task_id FROM run_tasks t JOIN episodes e ON e.run_id = t.run_id AND e.task_id = t.task_id
      WHERE t.run_id = @run_id AND t.ordinal >= @ordinal AND (t.ordinal > @ordinal OR e.trial > @trial) AND e.status = 'scored'
      ORDER BY t.ordinal, e.trial LIMIT @limit`,
    // The same keyset paging with every column (listEpisodes' rows) for episodes read with their transcripts.
    episodePage: `SELECT ${fullEpisodeColumns}, t.ordinal AS ordinal FROM run_tasks t JOIN episodes e ON e.run_id = t.run_id AND e.task_id = t.task_id
      WHERE t.run_id = @run_id AND t.ordinal >= @ordinal AND (t.ordinal > @ordinal OR e.trial > @trial)
        AND (CAST(@status AS TEXT) IS NULL OR e.status = @status)
      ORDER BY t.ordinal, e.trial LIMIT @limit`,
    // Episodes of a task the run does not list (only a damaged file has them), by (trial, task id) as listEpisodes
    // sorts their NULL ordinals: first in SQLite, last in PostgreSQL.
    orphanEpisodePage: `SELECT e.*, NULL AS prompt_task FROM episodes e
      WHERE e.run_id = @run_id AND NOT EXISTS (SELECT 1 FROM run_tasks t WHERE t.run_id = e.run_id AND t.task_id = e.task_id)
        AND (CAST(@status AS TEXT) IS NULL OR e.status = @status) AND (e.trial > @trial OR (e.trial = @trial AND e.task_id > @task_id))
      ORDER BY e.trial, e.task_id LIMIT @limit`,
    // Served by the run_tasks_facts index alone (store schema 7), without reading any task's JSON.
    taskFacts: 'SELECT phrasing, first_mode AS mode, COUNT(*) AS count FROM run_tasks WHERE run_id = @run_id GROUP BY phrasing, first_mode',
    findRun: `SELECT ${runColumns} FROM runs r WHERE r.id = @id`,
    // PostgreSQL has no rowid: runs created in the same millisecond fall back to their (random) ids.
    listRuns: (limited: boolean) => `SELECT ${runColumns} FROM runs r WHERE (CAST(@suite_id AS TEXT) IS NULL OR r.suite_id = @suite_id)
      ORDER BY r.created_at DESC, ${postgres ? 'r.id DESC' : 'r.rowid DESC'}${limited ? ' LIMIT @limit' : ''}`,
    setStatus: 'UPDATE runs SET status = @status WHERE id = @id',
    setProvenance: 'UPDATE runs SET provenance = @provenance, base_url = @base_url WHERE id = @id',
    listTasks: 'SELECT ordinal, task_id, task FROM run_tasks WHERE run_id = @run_id ORDER BY ordinal',
    upsertEpisode: `INSERT INTO episodes (run_id, task_id, trial, model, mode, status, termination, passed,
      value, failure, score, messages, messages_encoding, prompt_messages, input_tokens, output_tokens, attempts, started_at, ended_at, duration_ms, error, retries, trace)
      VALUES (@run_id, @task_id, @trial, @model, @mode, @status, @termination, @passed, @value, @failure, @score, @messages,
      @messages_encoding, @prompt_messages, @input_tokens, @output_tokens, @attempts, @started_at, @ended_at, @duration_ms, @error, @retries, @trace)
      ON CONFLICT (run_id, task_id, trial) DO UPDATE SET model = excluded.model, mode = excluded.mode,
        status = excluded.status, termination = excluded.termination, passed = excluded.passed, value = excluded.value,
        failure = excluded.failure, score = excluded.score, messages = excluded.messages,
        messages_encoding = excluded.messages_encoding, prompt_messages = excluded.prompt_messages,
        input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, attempts = excluded.attempts,
        started_at = excluded.started_at, ended_at = excluded.ended_at, duration_ms = excluded.duration_ms,
        error = excluded.error, trace = excluded.trace,
        retries = CASE WHEN episodes.retries IS NULL THEN excluded.retries WHEN excluded.retries IS NULL THEN episodes.retries
          ELSE ${mergedRetries(connection)} END
      WHERE episodes.status <> 'scored'`,
    // Saving an episode ends its work-queue lease (a no-op for runs without workers); the row keeps who held it last.
    finishQueued: 'UPDATE episode_queue SET done = 1, lease_expires_at = NULL WHERE run_id = @run_id AND task_id = @task_id AND trial = @trial',
    // The task id orders only episodes of unlisted tasks (a task's episodes share its ordinal): iterateEpisodes' order.
    listEpisodes: `SELECT ${fullEpisodeColumns} ${episodeJoin}
      WHERE e.run_id = @run_id AND (CAST(@status AS TEXT) IS NULL OR e.status = @status) ORDER BY t.ordinal, e.trial, e.task_id`,
    countEpisodes: 'SELECT status, COUNT(*) AS count FROM episodes WHERE run_id = @run_id GROUP BY status',
    countPassed: "SELECT COUNT(*) AS count FROM episodes WHERE run_id = @run_id AND status = 'scored' AND passed = 1",
    listPassed: `SELECT task_id AS "taskId" FROM episodes WHERE run_id = @run_id AND status = 'scored' AND passed = 1`,
    countRetries: postgres
      ? `SELECT r.key AS cause, SUM(r.value::bigint) AS count FROM episodes e, jsonb_each_text(e.retries::jsonb) r
        WHERE e.run_id = @run_id AND e.retries IS NOT NULL GROUP BY r.key ORDER BY r.key`
      : `SELECT r.key AS cause, SUM(r.value) AS count FROM episodes e, json_each(e.retries) r
        WHERE e.run_id = @run_id AND e.retries IS NOT NULL GROUP BY r.key ORDER BY r.key`,
    listEpisodeKeys: `SELECT task_id AS "taskId", trial, status FROM episodes WHERE run_id = @run_id ORDER BY task_id, trial`,
    listOutcomes: `SELECT ${outcomeColumns('e')} ${episodeJoin}
      WHERE e.run_id = @run_id AND (CAST(@status AS TEXT) IS NULL OR e.status = @status) ORDER BY t.ordinal, e.trial`,
    countScored: "SELECT COUNT(*) AS count FROM episodes WHERE run_id = @run_id AND status = 'scored'",
    usageTotals: `SELECT COALESCE(SUM(e.input_tokens), 0) AS "inputTokens", COALESCE(SUM(e.output_tokens), 0) AS "outputTokens"
      FROM episodes e JOIN run_tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id WHERE e.run_id = @run_id`,
    // One sort for every rank asked (OFFSET would sort once per rank); ties broken by key, so each rank is one row.
    scoredDurationsAt: (ranks: number) => `SELECT row_rank AS "rank", value FROM (SELECT duration_ms AS value,
        ROW_NUMBER() OVER (ORDER BY duration_ms, task_id, trial) - 1 AS row_rank FROM episodes WHERE run_id = @run_id AND status = 'scored') ranked
      WHERE row_rank IN (${Array.from({ length: ranks }, (_, index) => `@rank${index}`).join(', ')})`,
    findEpisode: `SELECT ${fullEpisodeColumns} ${episodeJoin} WHERE e.run_id = @run_id AND e.task_id = @task_id AND e.trial = @trial`,
    listTaskEpisodes: `SELECT ${fullEpisodeColumns} ${episodeJoin} WHERE e.run_id = @run_id AND e.task_id = @task_id ORDER BY e.trial`,
    findTask: 'SELECT ordinal, task_id, task FROM run_tasks WHERE run_id = @run_id AND task_id = @task_id',
    listTaskIds: `SELECT task_id AS "taskId" FROM run_tasks WHERE run_id = @run_id ORDER BY ordinal`,
    countOutcomes: `SELECT status, passed, failure, COUNT(*) AS count FROM episodes WHERE run_id = @run_id
      GROUP BY status, passed, failure`,
    deleteRun: 'DELETE FROM runs WHERE id = @id',
    // The queue: every (task, trial) without a scored episode, once; rows already there keep their state.
    enqueue: `INSERT INTO episode_queue (run_id, task_id, trial, ordinal, done)
      SELECT t.run_id, t.task_id, trials.trial, t.ordinal, 0 FROM run_tasks t JOIN ${trialNumbers(postgres)} trials ON TRUE
      WHERE t.run_id = @run_id AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.run_id = t.run_id AND e.task_id = t.task_id
        AND e.trial = trials.trial AND e.status = 'scored')
      ON CONFLICT (run_id, task_id, trial) DO NOTHING`,
    // Done rows whose episode is not scored (an infrastructure error) are offered again, as a resume would.
    requeueUnscored: `UPDATE episode_queue SET done = 0, worker = NULL, lease_expires_at = NULL WHERE run_id = @run_id AND done = 1
      AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.run_id = episode_queue.run_id AND e.task_id = episode_queue.task_id
        AND e.trial = episode_queue.trial AND e.status = 'scored')`,
    claim: postgres
      // SKIP LOCKED: concurrent workers never wait for, or take, the row another is claiming.
      ? `UPDATE episode_queue SET worker = @worker, lease_expires_at = ${postgresNow} + @lease_ms, claims = claims + 1
        WHERE (run_id, task_id, trial) = (SELECT run_id, task_id, trial FROM episode_queue
          WHERE run_id = @run_id AND done = 0 AND (lease_expires_at IS NULL OR lease_expires_at < ${postgresNow})
          ORDER BY ordinal, trial LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING task_id AS "taskId", trial, claims`
      // SQLite serialises writers (the claim runs in an IMMEDIATE transaction), so a plain subquery is safe.
      : `UPDATE episode_queue SET worker = @worker, lease_expires_at = @now + @lease_ms, claims = claims + 1
        WHERE rowid = (SELECT rowid FROM episode_queue
          WHERE run_id = @run_id AND done = 0 AND (lease_expires_at IS NULL OR lease_expires_at < @now)
          ORDER BY ordinal, trial LIMIT 1)
        RETURNING task_id AS "taskId", trial, claims`,
    runHold: `SELECT holder, held_until AS "heldUntil" FROM runs WHERE id = @id AND holder IS NOT NULL AND held_until >= ${postgres ? postgresNow : '@now'}`,
    lockRun: 'SELECT id FROM runs WHERE id = @id FOR UPDATE',
    holdRun: `UPDATE runs SET holder = @holder, held_until = ${postgres ? postgresNow : '@now'} + @lease_ms WHERE id = @id`,
    releaseRun: 'UPDATE runs SET holder = NULL, held_until = NULL WHERE id = @id AND holder = @holder',
    renew: `UPDATE episode_queue SET lease_expires_at = ${postgres ? postgresNow : '@now'} + @lease_ms
      WHERE run_id = @run_id AND worker = @worker AND done = 0`,
    leaseHolders: `SELECT DISTINCT worker FROM episode_queue WHERE run_id = @run_id AND done = 0 AND worker IS NOT NULL
      AND lease_expires_at IS NOT NULL AND lease_expires_at >= ${postgres ? postgresNow : '@now'}`,
    endLeases: 'UPDATE episode_queue SET lease_expires_at = NULL WHERE run_id = @run_id AND worker = @worker AND done = 0',
    queueCounts: `SELECT SUM(CASE WHEN done = 1 THEN 1 ELSE 0 END) AS done,
        SUM(CASE WHEN done = 0 AND lease_expires_at IS NOT NULL AND lease_expires_at >= ${postgres ? postgresNow : '@now'} THEN 1 ELSE 0 END) AS leased,
        SUM(CASE WHEN done = 0 AND (lease_expires_at IS NULL OR lease_expires_at < ${postgres ? postgresNow : '@now'}) THEN 1 ELSE 0 END) AS pending
      FROM episode_queue WHERE run_id = @run_id`,
  };

  const findRun = (runId: string): StoredRun | undefined => {
    const row = connection.get<RunRow>(sql.findRun, { id: runId });
    return row ? runFromRow(row) : undefined;
  };
  const listRuns = (filter: { suiteId?: string; limit?: number } = {}): StoredRun[] => {
    const limited = filter.limit !== undefined && filter.limit >= 0;
    return connection.all<RunRow>(sql.listRuns(limited), { suite_id: filter.suiteId ?? null, ...(limited ? { limit: filter.limit as number } : {}) })
      .map(runFromRow);
  };
  const getRun = (runId: string): StoredRun => {
    const run = findRun(runId);
    if (run) return run;
    const recent = listRuns({ limit: 5 }).map((candidate) => candidate.id);
    throw new ConfigError('store.unknown-run', `no run '${runId}' in ${location}`, {
      fix: recent.length > 0 ? `use one of the recent runs: ${recent.join(', ')} (or pass the right --db)` : `${location} has no runs yet: start one with 'toolforge run', or pass the right --db`,
    });
  };
  const insertTask = (runId: string, row: TaskRow, ordinal: number): void => {
    connection.run(sql.insertTask, { run_id: runId, ordinal, task_id: row.id, task: row.json, phrasing: row.phrasing, first_mode: row.firstMode });
  };
  const insertTasks = (runId: string, rows: readonly TaskRow[], firstOrdinal: number): void => {
    rows.forEach((row, index) => insertTask(runId, row, firstOrdinal + index));
  };
  const createRun = (run: NewRun, tasks: readonly Task[], tasksComplete = true): StoredRun => {
    connection.transaction(() => {
      connection.run(sql.insertRun, {
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
      if (!tasksComplete) connection.run(sql.setTasksComplete, { complete: 0, id: run.id });
      insertTasks(run.id, tasks.map(taskRow), 0);
    });
    return getRun(run.id);
  };
  function* iterateTasks(runId: string): Generator<Task> {
    for (let after = -1; ;) {
      const rows = connection.all<StoredTaskRow>(sql.taskPage, { run_id: runId, after, limit: taskPageSize });
      for (const row of rows) yield parseStoredTask<Task>(runId, row);
      if (rows.length < taskPageSize) return;
      after = Number(rows[rows.length - 1].ordinal);
    }
  }
  function* iterateTaskParamsAndStats(runId: string): Generator<Pick<Task, 'id' | 'params' | 'stats'>> {
    for (let after = -1; ;) {
      let rows: { ordinal: number; task_id: string; params: string | null; stats: string | null }[];
      try {
        rows = connection.all(sql.taskParamsAndStatsPage, { run_id: runId, after, limit: taskPageSize });
      } catch (error) {
        // The database's JSON reader refused a task of this page: find which, to name it.
        for (const row of connection.all<{ ordinal: number; task: string }>(sql.taskPage, { run_id: runId, after, limit: taskPageSize })) {
          parseStoredJson(row.task, 'task', { run_id: runId, ordinal: row.ordinal });
        }
        throw error;
      }
      for (const row of rows) {
        const where = { run_id: runId, task_id: row.task_id };
        yield {
          id: row.task_id,
          params: row.params === null ? {} : parseStoredJson<JsonObject>(row.params, 'task', where),
          stats: row.stats === null ? {} : parseStoredJson<JsonObject>(row.stats, 'task', where),
        };
      }
      if (rows.length < taskPageSize) return;
      after = Number(rows[rows.length - 1].ordinal);
    }
  }
  /** A run's episode rows in task order, then trial, read by keyset pages of `pageSize` (no OFFSET rescans). */
  function* inTaskOrder<Row extends { ordinal: number; trial: number }>(query: string, parameters: Record<string, string | number | null>, pageSize: number): Generator<Row> {
    for (let ordinal = -1, trial = -1; ;) {
      const rows = connection.all<Row>(query, { ...parameters, ordinal, trial, limit: pageSize });
      yield* rows;
      if (rows.length < pageSize) return;
      ({ ordinal, trial } = rows[rows.length - 1]);
    }
  }
  function* iterateEpisodeOutcomes(runId: string, filter: { status?: EpisodeStatus }): Generator<OrderedEpisodeOutcome> {
    const rows = inTaskOrder<EpisodeRow & { ordinal: number }>(sql.outcomePage, { run_id: runId, status: filter.status ?? null }, episodePageSize);
    for (const row of rows) yield { ordinal: row.ordinal, outcome: outcomeFromRow(row) };
  }
  function* iterateScores(runId: string): Generator<OrderedScore> {
    for (const row of inTaskOrder<{ ordinal: number; trial: number; score: string | null; task_id: string }>(sql.scorePage, { run_id: runId }, episodePageSize)) {
      // As iterateEpisodeOutcomes' readers do, a scored row without a score is passed over.
      if (row.score === null) continue;
      const score = parseStoredJson<Score | null>(row.score, 'score', { run_id: runId, task_id: row.task_id, trial: row.trial });
      if (score !== null) yield { ordinal: Number(row.ordinal), trial: row.trial, score };
    }
  }
  function* iterateEpisodes(runId: string, filter: { status?: EpisodeStatus }): Generator<EpisodeRecord> {
    const status = filter.status ?? null;
    function* orphans(): Generator<EpisodeRecord> {
      for (let trial = -1, taskId = ''; ;) {
        const rows = connection.all<EpisodeRow>(sql.orphanEpisodePage, { run_id: runId, status, trial, task_id: taskId, limit: fullEpisodePageSize });
        for (const row of rows) yield episodeFromRow(row);
        if (rows.length < fullEpisodePageSize) return;
        ({ trial, task_id: taskId } = rows[rows.length - 1]);
      }
    }
    if (!postgres) yield* orphans();
    for (const row of inTaskOrder<EpisodeRow & { ordinal: number }>(sql.episodePage, { run_id: runId, status }, fullEpisodePageSize)) yield episodeFromRow(row);
    if (postgres) yield* orphans();
  }
  const encodeEpisode = (episode: EpisodeRecord, taskPrompt?: readonly Message[], options?: TranscriptEncodingOptions): EncodedEpisode => {
    const row = episodeToRow(episode, taskPrompt, options);
    // PostgreSQL keeps every transcript as bytes (BYTEA); SQLite keeps short ones as readable text.
    if (postgres && typeof row.messages === 'string') row.messages = Buffer.from(row.messages, 'utf8');
    return { kind: 'encoded-episode', row };
  };
  const saveEpisode = (episode: EpisodeRecord | EncodedEpisode, taskPrompt?: readonly Message[]): boolean => {
    const { row } = 'kind' in episode ? episode : encodeEpisode(episode, taskPrompt);
    const changed = connection.run(sql.upsertEpisode, row) > 0;
    connection.run(sql.finishQueued, { run_id: row.run_id, task_id: row.task_id, trial: row.trial });
    return changed;
  };
  const listEpisodes = (runId: string, filter: { status?: EpisodeStatus } = {}): EpisodeRecord[] =>
    connection.all<EpisodeRow>(sql.listEpisodes, { run_id: runId, status: filter.status ?? null }).map(episodeFromRow);
  const listTasks = (runId: string): Task[] =>
    connection.all<StoredTaskRow>(sql.listTasks, { run_id: runId }).map((row) => parseStoredTask<Task>(runId, row));
  function hasAllTasks(runId: string): boolean {
    const row = connection.get<{ complete: number }>(sql.tasksComplete, { id: runId });
    if (!row) getRun(runId);
    return Number(row?.complete) === 1;
  }
  const iterateExportLines = (runId: string): Iterable<string> => {
    // Read now, so an unknown run is refused before anything is written.
    getRun(runId);
    return { [Symbol.iterator]: () => snapshotExportLines(runId) };
  };
  /**
   * The export read in one transaction on SQLite: every page comes from the same snapshot, so a run deleted, rescored
   * or still running while the export reads is written as it was when the export began, whole, never cut short
   * behind an end line that agrees with the cut.
   */
  function* snapshotExportLines(runId: string): Generator<string> {
    const snapshot = connection.dialect === 'sqlite' && !inReadSnapshot;
    if (snapshot) {
      connection.run('BEGIN');
      inReadSnapshot = true;
    }
    try {
      const run = getRun(runId);
      yield* runExportLines(run, iterateTasks(runId), iterateEpisodes(runId, {}), hasAllTasks(runId));
    } finally {
      if (snapshot) {
        inReadSnapshot = false;
        connection.run('COMMIT');
      }
    }
  }
  let inReadSnapshot = false;
  const importRunLines = (lines: Iterable<string>, source = 'import', options: { checkTask?: (task: Task) => string | undefined } = {}): StoredRun => {
    const entries = readRunExport(lines, source, options);
    try {
      // readRunExport yields the header first or throws.
      const header = entries.next();
      if (header.done || header.value.type !== 'run') throw new ToolForgeError('internal', `${source}: readRunExport yielded no run header first`);
      const { run, tasksComplete } = header.value;
      if (findRun(run.id)) {
        throw new ConfigError('input.invalid', `${source}: run '${run.id}' is already in ${location}; importing it again would duplicate its episodes`, {
          fix: `import into another ${connection.dialect === 'postgres' ? 'database with --db postgres://<host>/<other database>' : 'results file with --db <other path>'}, or delete the run first (toolforge delete ${run.id} --db ${databaseArgument(connection)})`,
        });
      }
      // One transaction, filled as the lines are read: a bad line anywhere rolls back everything before it.
      connection.transaction(() => {
        createRun(run, [], tasksComplete);
        for (let next = entries.next(); !next.done; next = entries.next()) {
          const entry = next.value;
          if (entry.type === 'task') insertTask(run.id, taskRow(entry.task), entry.ordinal);
          else if (entry.type === 'episode') saveEpisode(entry.episode);
        }
        connection.run(sql.setStatus, { status: run.status, id: run.id });
      });
      return getRun(run.id);
    } finally {
      // An import that ends early stops reading its lines (a file being read is closed).
      entries.return(undefined);
    }
  };
  const pageQuery = (query: EpisodeQuery) => episodeQuerySql(query, outcomeColumns('e'), connection.dialect);
  const now = (): number => Date.now();
  function runHold(runId: string): RunHold | undefined {
    const row = connection.get<{ holder: string; heldUntil: number | string }>(sql.runHold, { id: runId, ...(postgres ? {} : { now: now() }) });
    return row === undefined ? undefined : { holder: row.holder, heldUntil: Number(row.heldUntil) };
  }
  const queueCounts = (runId: string): EpisodeQueueCounts => {
    const row = connection.get<{ done: number | null; leased: number | null; pending: number | null }>(sql.queueCounts, { run_id: runId, ...(postgres ? {} : { now: now() }) });
    return { pending: row?.pending ?? 0, leased: row?.leased ?? 0, done: row?.done ?? 0 };
  };

  return {
    path: location,
    dialect: connection.dialect,
    createRun,
    findRun,
    getRun,
    listRuns,
    latestRun: (filter = {}) => listRuns({ ...filter, limit: 1 })[0],
    setRunStatus(runId, status) {
      if (connection.run(sql.setStatus, { status, id: runId }) === 0) getRun(runId);
    },
    recordResume(runId, resume) {
      const run = getRun(runId);
      const provenance = { ...run.provenance, resumes: [...(run.provenance.resumes ?? []), resume] };
      connection.run(sql.setProvenance, { provenance: JSON.stringify(provenance), base_url: resume.baseUrl, id: runId });
    },
    listTasks,
    beginRun: (run) => createRun(run, [], false),
    appendTasks(runId, tasks, firstOrdinal) {
      connection.transaction(() => insertTasks(runId, tasks, firstOrdinal));
    },
    completeTasks(runId, provenance?: Provenance) {
      connection.transaction(() => {
        if (provenance) connection.run(sql.setRunProvenance, { provenance: JSON.stringify(provenance), id: runId });
        connection.run(sql.setTasksComplete, { complete: 1, id: runId });
      });
    },
    hasAllTasks,
    iterateTasks: (runId) => ({ [Symbol.iterator]: () => iterateTasks(runId) }),
    iterateTaskParamsAndStats: (runId) => ({ [Symbol.iterator]: () => iterateTaskParamsAndStats(runId) }),
    listTasksBetween(runId, from, to) {
      const rows = connection.all<StoredTaskRow>(sql.tasksBetween, { run_id: runId, from, to });
      return new Map(rows.map((row) => [Number(row.ordinal), parseStoredTask<Task>(runId, row)]));
    },
    taskFacts(runId) {
      const facts: TaskFacts = { count: 0, phrased: 0, phrasingFallbacks: 0, firstModes: [] };
      for (const row of connection.all<{ phrasing: string | null; mode: string | null; count: number }>(sql.taskFacts, { run_id: runId })) {
        const count = Number(row.count);
        facts.count += count;
        if (row.phrasing === 'model' || row.phrasing === 'template-fallback') facts.phrased += count;
        if (row.phrasing === 'template-fallback') facts.phrasingFallbacks += count;
        if (row.mode !== null && !facts.firstModes.includes(row.mode)) facts.firstModes.push(row.mode);
      }
      return facts;
    },
    iterateEpisodeOutcomes: (runId, filter = {}) => ({ [Symbol.iterator]: () => iterateEpisodeOutcomes(runId, filter) }),
    iterateScores: (runId) => ({ [Symbol.iterator]: () => iterateScores(runId) }),
    iterateEpisodes: (runId, filter = {}) => ({ [Symbol.iterator]: () => iterateEpisodes(runId, filter) }),
    saveEpisode: (episode, taskPrompt) => connection.transaction(() => saveEpisode(episode, taskPrompt)),
    saveEpisodes: (episodes) => {
      connection.checkInPlace?.();
      return connection.transaction(() => episodes.map((episode) => saveEpisode(episode)));
    },
    encodeEpisode,
    listEpisodes,
    countEpisodes(runId) {
      const counts: Record<EpisodeStatus, number> = { scored: 0, 'infrastructure-error': 0, cancelled: 0 };
      for (const row of connection.all<{ status: EpisodeStatus; count: number }>(sql.countEpisodes, { run_id: runId })) counts[row.status] = row.count;
      return counts;
    },
    countPassedEpisodes: (runId) => connection.get<{ count: number }>(sql.countPassed, { run_id: runId })?.count ?? 0,
    listPassedTaskTrials: (runId) => connection.all<{ taskId: string }>(sql.listPassed, { run_id: runId }).map((row) => row.taskId),
    countRetries(runId) {
      const counts: Record<string, number> = {};
      for (const row of connection.all<{ cause: string; count: number }>(sql.countRetries, { run_id: runId })) counts[row.cause] = row.count;
      return counts;
    },
    listEpisodeOutcomes: (runId, filter = {}) =>
      connection.all<EpisodeRow>(sql.listOutcomes, { run_id: runId, status: filter.status ?? null }).map(outcomeFromRow),
    listEpisodeOutcomesOfTasks(runId, taskIds) {
      if (taskIds.length === 0) return [];
      const parameters: Record<string, string> = { run_id: runId };
      taskIds.forEach((taskId, index) => { parameters[`task${index}`] = taskId; });
      return connection.all<EpisodeRow>(`SELECT ${outcomeColumns('e')} ${episodeJoin}
        WHERE e.run_id = @run_id AND e.task_id IN (${taskIds.map((_, index) => `@task${index}`).join(', ')}) ORDER BY t.ordinal, e.trial`, parameters)
        .map(outcomeFromRow);
    },
    usageTotals(runId) {
      const row = connection.get<{ inputTokens: number | string; outputTokens: number | string }>(sql.usageTotals, { run_id: runId });
      return { inputTokens: Number(row?.inputTokens ?? 0), outputTokens: Number(row?.outputTokens ?? 0) };
    },
    sortedScoredDurations(runId) {
      const count = Number(connection.get<{ count: number }>(sql.countScored, { run_id: runId })?.count ?? 0);
      return {
        count,
        valuesAt(ranks) {
          if (ranks.length === 0) return [];
          const parameters: Record<string, string | number> = { run_id: runId };
          ranks.forEach((rank, index) => { parameters[`rank${index}`] = rank; });
          const byRank = new Map(connection.all<{ rank: number | string; value: number | string }>(sql.scoredDurationsAt(ranks.length), parameters)
            .map((row) => [Number(row.rank), Number(row.value)]));
          return ranks.map((rank) => {
            const value = byRank.get(rank);
            if (value === undefined) throw new RangeError(`no scored episode at rank ${rank} of ${count} in run ${runId}`);
            return value;
          });
        },
      };
    },
    queryEpisodes(runId, query) {
      const page = pageQuery(query);
      const parameters: Record<string, string | number> = { ...page.parameters, run_id: runId };
      const { limit: _limit, offset: _offset, ...filterParameters } = parameters;
      const total = connection.get<{ count: number }>(page.count, filterParameters)?.count ?? 0;
      const episodes = connection.all<EpisodeRow>(page.page, parameters).map(outcomeFromRow);
      return { total, offset: page.offset, limit: page.limit, episodes };
    },
    listMatchingTaskIds(runId, query) {
      const page = pageQuery({ ...query, limit: undefined, offset: undefined });
      const { limit: _limit, offset: _offset, ...parameters } = page.parameters;
      return connection.all<{ taskId: string }>(page.taskIds, { ...parameters, run_id: runId }).map((row) => row.taskId);
    },
    findEpisode(runId, taskId, trial) {
      const row = connection.get<EpisodeRow>(sql.findEpisode, { run_id: runId, task_id: taskId, trial });
      return row ? episodeFromRow(row) : undefined;
    },
    listTaskEpisodes: (runId, taskId) => connection.all<EpisodeRow>(sql.listTaskEpisodes, { run_id: runId, task_id: taskId }).map(episodeFromRow),
    findTask(runId, taskId) {
      const row = connection.get<StoredTaskRow>(sql.findTask, { run_id: runId, task_id: taskId });
      return row ? parseStoredTask<Task>(runId, row) : undefined;
    },
    listTaskIds: (runId) => connection.all<{ taskId: string }>(sql.listTaskIds, { run_id: runId }).map((row) => row.taskId),
    countOutcomes(runId) {
      const counts: RunOutcomeCounts = { scored: 0, passed: 0, infrastructureErrors: 0, cancelled: 0, failures: {} };
      for (const row of connection.all<{ status: EpisodeStatus; passed: number | null; failure: string | null; count: number }>(sql.countOutcomes, { run_id: runId })) {
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
    listEpisodeKeys: (runId) => connection.all<{ taskId: string; trial: number; status: EpisodeStatus }>(sql.listEpisodeKeys, { run_id: runId }),
    deleteRun(runId) {
      if (connection.run(sql.deleteRun, { id: runId }) === 0) getRun(runId);
    },
    iterateExportLines,
    exportRun: (runId) => `${[...iterateExportLines(runId)].join('\n')}\n`,
    importRun: (jsonl, source) => importRunLines(jsonl.split('\n'), source),
    importRunLines,
    enqueueEpisodes(runId) {
      const run = getRun(runId);
      connection.transaction(() => {
        connection.run(sql.requeueUnscored, { run_id: runId });
        connection.run(sql.enqueue, { run_id: runId, trials: run.trials });
      });
      return queueCounts(runId);
    },
    claimEpisode(runId, workerId, leaseMs): EpisodeClaim | undefined {
      return connection.transaction(() => connection.get<EpisodeClaim>(sql.claim, {
        run_id: runId, worker: workerId, lease_ms: leaseMs, ...(postgres ? {} : { now: now() }),
      }));
    },
    renewLeases(runId, workerId, leaseMs) {
      connection.run(sql.renew, { run_id: runId, worker: workerId, lease_ms: leaseMs, ...(postgres ? {} : { now: now() }) });
    },
    queueCounts,
    releaseGoneWorkers(runId, isGone) {
      const holders = connection.all<{ worker: string }>(sql.leaseHolders, { run_id: runId, ...(postgres ? {} : { now: now() }) });
      let freed = 0;
      for (const { worker } of holders) {
        if (isGone(worker)) freed += connection.run(sql.endLeases, { run_id: runId, worker });
      }
      return freed;
    },
    holdRun(runId, holder, leaseMs, isGone) {
      getRun(runId);
      // Read and taken in one transaction: of two processes starting together, one holds the run.
      return connection.transaction(() => {
        // SQLite's write transaction is exclusive already; PostgreSQL locks the run's row.
        if (postgres) connection.get(sql.lockRun, { id: runId });
        const current = runHold(runId);
        if (current !== undefined && current.holder !== holder && !isGone(current.holder)) return current;
        connection.run(sql.holdRun, { id: runId, holder, lease_ms: leaseMs, ...(postgres ? {} : { now: now() }) });
        return undefined;
      });
    },
    runHold,
    releaseRun(runId, holder) {
      connection.run(sql.releaseRun, { id: runId, holder });
    },
    close() {
      connection.close();
    },
  };
}

/** The server's clock in ms since the epoch: leases from workers on several machines compare on one clock. */
const postgresNow = `CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)`;

/** The trial numbers 0 .. @trials - 1 as a table. */
function trialNumbers(postgres: boolean): string {
  return postgres
    ? '(SELECT generate_series(0, CAST(@trials AS INTEGER) - 1) AS trial)'
    : '(WITH RECURSIVE numbers(trial) AS (SELECT 0 WHERE @trials > 0 UNION ALL SELECT trial + 1 FROM numbers WHERE trial + 1 < @trials) SELECT trial FROM numbers)';
}

/** This store as a `--db` value in a printed command: the SQLite file's path; a PostgreSQL address as given, unless its password was hidden. */
function databaseArgument(connection: SqlConnection): string {
  return connection.location.includes(':***@') ? '<the same postgres:// address>' : shellArgument(connection.location);
}

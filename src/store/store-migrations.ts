/**
 * The database schema, as an append-only list of migrations. Never edit a shipped migration: add the
 * next one. `schema_version` records which have been applied. SQLite and PostgreSQL get the same tables
 * and columns; where their types differ a migration takes them as parameters (DOUBLE PRECISION for REAL,
 * BIGINT for counts and times, BYTEA for transcripts, which SQLite keeps as text or blob). The SQLite
 * statements are exactly those shipped before PostgreSQL was added.
 */
import type { SqlDialect } from './sql-connection.ts';

/** The column types that differ between the two databases. */
type ColumnTypes = { real: string; bigint: string; transcript: string };

const columnTypes: Record<SqlDialect, ColumnTypes> = {
  sqlite: { real: 'REAL', bigint: 'INTEGER', transcript: 'TEXT' },
  postgres: { real: 'DOUBLE PRECISION', bigint: 'BIGINT', transcript: 'BYTEA' },
};

export type Migration = { version: number; description: string; statements: string[] | ((types: ColumnTypes, dialect: SqlDialect) => string[]) };

export function migrationStatements(migration: Migration, dialect: SqlDialect): string[] {
  return typeof migration.statements === 'function' ? migration.statements(columnTypes[dialect], dialect) : migration.statements;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, run tasks and episodes',
    statements: (types) => [
      `CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        suite_id TEXT NOT NULL,
        suite_version TEXT NOT NULL,
        model TEXT NOT NULL,
        base_url TEXT,
        mode TEXT,
        trials INTEGER NOT NULL,
        concurrency INTEGER NOT NULL,
        seed ${types.bigint} NOT NULL,
        params TEXT NOT NULL,
        settings TEXT NOT NULL,
        provenance TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'cancelled', 'failed'))
      )`,
      `CREATE INDEX runs_by_suite ON runs (suite_id, created_at)`,
      `CREATE TABLE run_tasks (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        task_id TEXT NOT NULL,
        task TEXT NOT NULL,
        PRIMARY KEY (run_id, ordinal),
        UNIQUE (run_id, task_id)
      )`,
      `CREATE TABLE episodes (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        task_id TEXT NOT NULL,
        trial INTEGER NOT NULL,
        model TEXT NOT NULL,
        mode TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('scored', 'infrastructure-error', 'cancelled')),
        termination TEXT,
        passed INTEGER,
        value ${types.real},
        failure TEXT,
        score TEXT,
        messages ${types.transcript} NOT NULL,
        input_tokens ${types.bigint} NOT NULL,
        output_tokens ${types.bigint} NOT NULL,
        attempts INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT NOT NULL,
        duration_ms ${types.bigint} NOT NULL,
        error TEXT,
        UNIQUE (run_id, task_id, trial)
      )`,
      `CREATE INDEX episodes_by_status ON episodes (run_id, status)`,
    ],
  },
  {
    version: 2,
    description: 'retries per cause on each episode (JSON object; NULL when there were none)',
    statements: ['ALTER TABLE episodes ADD COLUMN retries TEXT'],
  },
  {
    version: 3,
    description: 'episode trace: final state, call record, warnings, raw bodies',
    statements: [
      // One JSON column: {finalState, calls, warnings, raw?}; NULL for episodes stored before it.
      'ALTER TABLE episodes ADD COLUMN trace TEXT',
    ],
  },
  {
    version: 4,
    // Old rows keep their JSON text ('json'); large transcripts written from now on are gzip-compressed JSON
    // ('gzip', a BLOB), which shrinks a database of long tool-heavy runs several-fold. The outcome index serves
    // the viewer's and the report's filters and counts without touching transcripts.
    description: 'compressed transcripts and an outcome index',
    statements: [
      `ALTER TABLE episodes ADD COLUMN messages_encoding TEXT NOT NULL DEFAULT 'json' CHECK (messages_encoding IN ('json', 'gzip'))`,
      `CREATE INDEX episodes_by_outcome ON episodes (run_id, status, passed, failure)`,
    ],
  },
  {
    version: 5,
    // Team runs: workers on any number of machines claim a run's episodes from this queue. A claim is a lease
    // (worker, expiry in ms since the epoch); an expired lease is claimed again, so a killed worker's episodes
    // are not lost. Saving an episode marks its row done. Runs that never use workers have no rows here.
    description: 'episode work queue with leases',
    statements: (types) => [
      `CREATE TABLE episode_queue (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        task_id TEXT NOT NULL,
        trial INTEGER NOT NULL,
        ordinal INTEGER NOT NULL,
        done INTEGER NOT NULL DEFAULT 0,
        worker TEXT,
        lease_expires_at ${types.bigint},
        claims INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, task_id, trial)
      )`,
      `CREATE INDEX episode_queue_next ON episode_queue (run_id, done, ordinal, trial)`,
    ],
  },
  {
    version: 6,
    // A run's tasks are streamed into run_tasks in batches after its row is written: 0 until the last batch is in,
    // so a run killed meanwhile is told apart from one that has all its tasks. Runs written before are complete.
    description: 'whether every task of a run is stored',
    statements: ['ALTER TABLE runs ADD COLUMN tasks_complete INTEGER NOT NULL DEFAULT 1'],
  },
  {
    version: 7,
    // A run's summary counts its tasks by stats.phrasing and first mode. Read from the task JSON, that parsed every
    // task (~12 KB each for NESTFUL) at every summary; as columns with a covering index it reads the index alone.
    // Tasks stored before are filled in from their JSON here.
    description: 'task phrasing and first mode as indexed columns',
    statements: (_types, dialect) => [
      'ALTER TABLE run_tasks ADD COLUMN phrasing TEXT',
      'ALTER TABLE run_tasks ADD COLUMN first_mode TEXT',
      dialect === 'postgres'
        ? `UPDATE run_tasks SET phrasing = task::jsonb -> 'stats' ->> 'phrasing', first_mode = task::jsonb -> 'modes' ->> 0`
        : `UPDATE run_tasks SET phrasing = json_extract(task, '$.stats.phrasing'), first_mode = json_extract(task, '$.modes[0]')`,
      'CREATE INDEX run_tasks_facts ON run_tasks (run_id, phrasing, first_mode)',
    ],
  },
  {
    version: 8,
    // An episode's transcript starts with its task's prompt, stored with the run's task: ~5 KB of a NESTFUL
    // episode's ~7 was that copy, compressed again in every episode. Rows before keep their whole transcript (0).
    description: 'leading transcript messages taken from the task prompt',
    statements: ['ALTER TABLE episodes ADD COLUMN prompt_messages INTEGER NOT NULL DEFAULT 0'],
  },
  {
    version: 9,
    // The process running a run holds it under a renewed lease, so a second process cannot resume, delete or rescore
    // it meanwhile (a resume of a run still running crashed on its tasks and marked the run cancelled).
    description: 'which process runs a run, and until when its hold lasts',
    statements: (types) => ['ALTER TABLE runs ADD COLUMN holder TEXT', `ALTER TABLE runs ADD COLUMN held_until ${types.bigint}`],
  },
];

export const latestSchemaVersion = migrations[migrations.length - 1].version;

/**
 * The database schema, as an append-only list of migrations. Never edit a shipped migration: add the
 * next one. `schema_version` records which have been applied.
 */
export type Migration = { version: number; description: string; statements: string[] };

export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, run tasks and episodes',
    statements: [
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
        seed INTEGER NOT NULL,
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
        value REAL,
        failure TEXT,
        score TEXT,
        messages TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        attempts INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
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
];

export const latestSchemaVersion = migrations[migrations.length - 1].version;

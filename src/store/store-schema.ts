/**
 * Checks and upgrades a results database's schema, the same way for SQLite and PostgreSQL: the tables
 * must be ours (a `schema_version` table) or none, a newer schema than this ToolForge knows is refused,
 * and missing migrations are applied in one transaction (two processes opening a new database do not race).
 */
import { ConfigError } from '../core/errors.ts';
import type { SqlConnection, SqlDialect } from './sql-connection.ts';
import { latestSchemaVersion, migrationStatements, migrations } from './store-migrations.ts';

/** A lock id only ToolForge takes (PostgreSQL advisory locks are per database). */
const postgresMigrationLock = 7_415_002;

export function invalidStore(location: string, reason: string, options: { cause?: unknown; dialect?: SqlDialect } = {}): ConfigError {
  return new ConfigError('store.invalid', `${location} is not a ToolForge results database: ${reason}`, {
    fix: options.dialect === 'postgres'
      ? 'pass --db postgres://<host>/<other database>: ToolForge sets up an empty database on first use'
      : `pass --db <other path> to use (or create) another results file, or move ${location} aside`,
    cause: options.cause,
  });
}

function listTables(connection: SqlConnection): string[] {
  const sql = connection.dialect === 'sqlite'
    ? `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
    : `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`;
  return connection.all<{ name: string }>(sql).map((row) => row.name);
}

function currentVersion(connection: SqlConnection): number {
  return connection.get<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_version')?.version ?? 0;
}

function refuseNewer(connection: SqlConnection, current: number): void {
  if (current > latestSchemaVersion) {
    throw new ConfigError('store.invalid', `${connection.location} has schema version ${current}, newer than this ToolForge understands (${latestSchemaVersion})`, {
      fix: 'upgrade ToolForge, or pass --db <other path>',
    });
  }
}

/** For a read-only open, which cannot upgrade: is the schema the one this ToolForge writes? */
export function checkSchema(connection: SqlConnection): 'current' | 'older' {
  const tables = listTables(connection);
  if (!tables.includes('schema_version')) {
    throw invalidStore(connection.location, tables.length > 0 ? `it holds other tables (${tables.slice(0, 5).join(', ')})` : 'it is empty', { dialect: connection.dialect });
  }
  const current = currentVersion(connection);
  refuseNewer(connection, current);
  return current < latestSchemaVersion ? 'older' : 'current';
}

export function migrateSchema(connection: SqlConnection): void {
  connection.transaction(() => {
    if (connection.dialect === 'postgres') connection.get(`SELECT pg_advisory_xact_lock(${postgresMigrationLock})`);
    const tables = listTables(connection);
    if (!tables.includes('schema_version')) {
      if (tables.length > 0) throw invalidStore(connection.location, `it holds other tables (${tables.slice(0, 5).join(', ')})`, { dialect: connection.dialect });
      connection.run('CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)');
    }
    const current = currentVersion(connection);
    refuseNewer(connection, current);
    for (const migration of migrations.filter((candidate) => candidate.version > current)) {
      for (const statement of migrationStatements(migration, connection.dialect)) connection.run(statement);
      connection.run('INSERT INTO schema_version (version, applied_at) VALUES (@version, @applied_at)', {
        version: migration.version, applied_at: new Date().toISOString(),
      });
    }
  });
}

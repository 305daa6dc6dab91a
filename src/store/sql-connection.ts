/**
 * What the results store needs of a database: statements with named parameters (`@name`), a transaction,
 * and which SQL dialect to write. The SQLite file (sqlite-connection.ts) and a PostgreSQL server
 * (postgres/postgres-connection.ts) both provide it, so one store implementation (sql-results-store.ts)
 * serves both with the same schema and migrations.
 */
export type SqlDialect = 'sqlite' | 'postgres';

export type SqlValue = string | number | null | Buffer;
export type SqlParameters = Record<string, SqlValue> | readonly SqlValue[];

export type SqlConnection = {
  readonly dialect: SqlDialect;
  /** What messages name: the file path, or the server address without its password. */
  readonly location: string;
  all<Row>(sql: string, parameters?: SqlParameters): Row[];
  get<Row>(sql: string, parameters?: SqlParameters): Row | undefined;
  /** Runs a statement; returns how many rows it changed. */
  run(sql: string, parameters?: SqlParameters): number;
  /** Runs `work` in one transaction (a nested call joins the outer one); rolls back if it throws. */
  transaction<T>(work: () => T): T;
  /**
   * Throws when the file this connection writes is no longer the one at its path (deleted, moved or replaced while a
   * run writes to it): what is written after that goes to a file nothing can open, so a run stops instead of reporting
   * its episodes stored. A server database has no such file.
   */
  checkInPlace?(): void;
  close(): void;
};

export type OpenStoreOptions = {
  /**
   * Open without writing anything (no schema upgrade, no journal-mode change): what `runs`, `report`, `export`
   * and `view` use, so they work on a file the user may not write and never create one.
   */
  readOnly?: boolean;
  /**
   * Open for writing, but only a database that is already there: what commands that add to a stored run use
   * (resume, worker, rescore), so a mistyped path is an error, not a new empty file.
   */
  mustExist?: boolean;
};

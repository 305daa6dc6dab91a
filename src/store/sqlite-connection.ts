/**
 * The embedded default: one SQLite file (better-sqlite3, WAL), opened with clear errors for every way a
 * path can be unusable, its schema checked or upgraded, and served as a SqlConnection. Statements are
 * prepared once per SQL text.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError, ToolForgeError, errorMessage } from '../core/errors.ts';
import { prepareFileFolder } from '../core/prepare-file-folder.ts';
import type { OpenStoreOptions, SqlConnection, SqlParameters } from './sql-connection.ts';
import { checkSchema, invalidStore, migrateSchema } from './store-schema.ts';


/** SQLite's largest page size; see openSqliteConnection. */
const newFilePageSize = 65_536;

export function openSqliteConnection(path: string, options: OpenStoreOptions = {}): SqlConnection {
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
      if (checkSchema(sqliteConnection(database, filePath)) === 'older') {
        // An older file is upgraded once by a writing open (the upgrade keeps every run), then read as usual.
        database.close();
        database = undefined;
        openSqliteConnection(filePath).close();
        return openSqliteConnection(filePath, options);
      }
    } else {
      // The first statements read the header: a file that is not SQLite fails here.
      // A new file gets 64 KB pages: a run stores a few KB to tens of KB per task and episode, which 4 KB pages split
      // into overflow chains (a 17,102-task NESTFUL run's inserts: 716 ms -> 336 ms). An existing file keeps its size.
      database.pragma(`page_size = ${newFilePageSize}`);
      database.pragma('journal_mode = WAL');
      database.pragma('foreign_keys = ON');
      // In WAL mode NORMAL survives a killed process (not a power cut) and keeps commits cheap.
      database.pragma('synchronous = NORMAL');
      migrateSchema(sqliteConnection(database, filePath));
    }
  } catch (error) {
    database?.close();
    if (error instanceof ToolForgeError) throw error;
    throw describeOpenFailure(filePath, error, readOnly);
  }
  return sqliteConnection(database, filePath);
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
  return invalidStore(path, errorMessage(error), { cause: error });
}

/** The database's folder, made when missing; a path that cannot hold the file is the user's to fix. */
function prepareDatabaseDirectory(filePath: string): void {
  const problem = prepareFileFolder(filePath);
  if (problem === undefined) return;
  throw new ConfigError('store.unwritable', `cannot create the results database ${filePath}: ${problem.reason}`, {
    fix: 'pass --db <path> in a folder you can write to (the default is .toolforge/results.db in the current folder)',
    cause: problem.cause,
  });
}

function sqliteConnection(database: Database.Database, path: string): SqlConnection {
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string): Database.Statement => {
    let found = prepared.get(sql);
    if (!found) {
      found = database.prepare(sql);
      prepared.set(sql, found);
    }
    return found;
  };
  const bind = (parameters: SqlParameters | undefined): unknown[] => (parameters === undefined ? [] : Array.isArray(parameters) ? parameters : [parameters]);
  return {
    dialect: 'sqlite',
    location: path,
    all: <Row>(sql: string, parameters?: SqlParameters) => statement(sql).all(...bind(parameters)) as Row[],
    get: <Row>(sql: string, parameters?: SqlParameters) => statement(sql).get(...bind(parameters)) as Row | undefined,
    run: (sql, parameters) => statement(sql).run(...bind(parameters)).changes,
    // IMMEDIATE takes the write lock at BEGIN, so two processes writing one file wait for each other instead of
    // failing to upgrade a read lock; a nested call becomes a savepoint.
    transaction: <T>(work: () => T): T => database.transaction(work).immediate(),
    close: () => database.close(),
  };
}

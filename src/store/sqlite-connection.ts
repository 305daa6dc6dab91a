/**
 * The embedded default: one SQLite file (better-sqlite3, WAL), opened with clear errors for every way a
 * path can be unusable, its schema checked or upgraded, and served as a SqlConnection. Statements are
 * prepared once per SQL text.
 */
import { accessSync, chmodSync, constants, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
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
    if (readOnly || options.mustExist === true) {
      if (!existsSync(filePath)) {
        throw new ConfigError('input.unreadable', `no results database at ${filePath}`, {
          fix: "run 'toolforge run <suite> --model <ref>' first, or pass --db <file> to read another database",
        });
      }
    }
    if (!readOnly) {
      checkFileNameLength(filePath);
      prepareDatabaseDirectory(filePath);
      // SQLite opens a file it may not write read-only without a word, and fails at the first write.
      checkWritableFile(filePath);
    }
  }
  if (readOnly) return openForReading(filePath);
  let database: Database.Database | undefined;
  try {
    database = new Database(filePath);
    database.pragma('busy_timeout = 5000');
    // The first statements read the header: a file that is not SQLite fails here.
    // A new file gets 64 KB pages: a run stores a few KB to tens of KB per task and episode, which 4 KB pages split
    // into overflow chains (a 17,102-task NESTFUL run's inserts: 716 ms -> 336 ms). An existing file keeps its size.
    database.pragma(`page_size = ${newFilePageSize}`);
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    // In WAL mode NORMAL survives a killed process (not a power cut) and keeps commits cheap.
    database.pragma('synchronous = NORMAL');
    migrateSchema(sqliteConnection(database, filePath));
  } catch (error) {
    database?.close();
    if (error instanceof ToolForgeError) throw error;
    throw describeOpenFailure(filePath, error, false);
  }
  return sqliteConnection(database, filePath);
}

/**
 * A read-only open. Two files it cannot read in place are read through an upgraded copy instead, so the
 * commands that only read work on any file the user can read:
 * - a file in a folder the user cannot write: a WAL database's reader must create `<file>-shm` beside it;
 * - a file written by an older ToolForge that the user cannot upgrade in place.
 */
function openForReading(filePath: string): SqlConnection {
  let database: Database.Database | undefined;
  try {
    database = new Database(filePath, { readonly: true, fileMustExist: true });
    database.pragma('busy_timeout = 5000');
    if (checkSchema(sqliteConnection(database, filePath)) === 'current') return sqliteConnection(database, filePath);
    // An older file is upgraded once by a writing open (the upgrade keeps every run), then read as usual.
    database.close();
    database = undefined;
    try {
      openSqliteConnection(filePath).close();
    } catch (error) {
      if (error instanceof ConfigError && error.code === 'store.unwritable') return openUpgradedCopy(filePath);
      throw error;
    }
    return openForReading(filePath);
  } catch (error) {
    database?.close();
    if (error instanceof ToolForgeError) throw error;
    if (cannotCreateReaderFiles(filePath, error)) return openUpgradedCopy(filePath);
    throw describeOpenFailure(filePath, error, true);
  }
}

/** A readable file whose reader could not make its shared-memory file: the folder is not the user's to write. */
function cannotCreateReaderFiles(filePath: string, error: unknown): boolean {
  const code = sqliteCode(error);
  if (!code.startsWith('SQLITE_READONLY') && !code.startsWith('SQLITE_CANTOPEN')) return false;
  // A -shm file already there means a writer may be at work: a copy could catch it half-way, so say so instead.
  if (existsSync(`${filePath}-shm`)) return false;
  try {
    accessSync(filePath, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Copies the file (and its write-ahead log, when there is one) into a private temporary folder, opens the copy
 * for writing, so SQLite may replay the log and the schema be upgraded, and removes the copy on close or exit.
 * Messages name the user's file; nothing is ever written beside it.
 */
function openUpgradedCopy(filePath: string): SqlConnection {
  removeAbandonedCopies();
  let folder: string;
  try {
    folder = mkdtempSync(join(tmpdir(), `${copyFolderPrefix}${process.pid}-`));
  } catch (error) {
    throw new ConfigError('store.unwritable', `cannot read ${filePath}: its folder is not writable, and no temporary copy could be made in ${tmpdir()} (${errorMessage(error)})`, {
      fix: `copy ${filePath} into a folder you can write to and pass --db <the copy>, or set TMPDIR to a writable folder`,
      cause: error,
    });
  }
  const removeCopy = (): void => rmSync(folder, { recursive: true, force: true });
  process.once('exit', removeCopy);
  const copyPath = join(folder, basename(filePath));
  let database: Database.Database | undefined;
  try {
    copyFileSync(filePath, copyPath);
    if (existsSync(`${filePath}-wal`)) copyFileSync(`${filePath}-wal`, `${copyPath}-wal`);
    // A copy keeps the file's mode: the user's own copy must be writable for the upgrade.
    for (const copied of [copyPath, `${copyPath}-wal`]) if (existsSync(copied)) chmodSync(copied, 0o600);
    database = new Database(copyPath);
    database.pragma('foreign_keys = ON');
    migrateSchema(sqliteConnection(database, filePath));
  } catch (error) {
    database?.close();
    removeCopy();
    process.removeListener('exit', removeCopy);
    if (error instanceof ToolForgeError) throw error;
    if (sqliteCode(error) === '' && (error as { code?: unknown }).code !== undefined) {
      throw new ConfigError('store.unwritable', `cannot read ${filePath}: its folder is not writable, and copying it to ${folder} failed (${errorMessage(error)})`, {
        fix: `copy ${filePath} into a folder you can write to and pass --db <the copy>, or set TMPDIR to a folder with room`,
        cause: error,
      });
    }
    throw invalidStore(filePath, errorMessage(error), { cause: error });
  }
  const connection = sqliteConnection(database, filePath);
  return {
    ...connection,
    close: () => {
      connection.close();
      removeCopy();
      process.removeListener('exit', removeCopy);
    },
  };
}

/** A copy's folder is named for the process reading it: `toolforge-read-<pid>-<random>`. */
const copyFolderPrefix = 'toolforge-read-';
const copyFolderPattern = /^toolforge-read-(\d+)-/;

/**
 * A reader that was killed (kill -9, a crash) could not remove its copy, a whole results database: the copies of
 * this user's processes that are no longer running are removed before another is made.
 */
function removeAbandonedCopies(): void {
  const folder = tmpdir();
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = copyFolderPattern.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isRunning(Number(pid))) continue;
    const path = join(folder, name);
    try {
      // Another user's copy is theirs to remove.
      if (statSync(path).uid !== process.getuid?.()) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already, or not ours to remove: the copy being made does not depend on it.
    }
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: running, as another user.
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

function sqliteCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : '';
}

/** SQLite's error codes say why a file could not be used; each gets its own message and fix. */
function describeOpenFailure(path: string, error: unknown, readOnly: boolean): ConfigError {
  // better-sqlite3 gives extended codes (SQLITE_READONLY_DIRECTORY, SQLITE_CANTOPEN_ISDIR, ...): match the family.
  const code = sqliteCode(error);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new ConfigError('store.locked', `${path} is locked by another process (${errorMessage(error)})`, {
      fix: 'wait for the other toolforge command using it to finish, or pass --db <other path>',
      cause: error,
    });
  }
  // A full or failing disk while the file is made or upgraded: the machine, not the file (which is not "invalid").
  if (code.startsWith('SQLITE_FULL') || code.startsWith('SQLITE_IOERR')) {
    const cause = code.startsWith('SQLITE_FULL') ? 'the disk is full' : 'the disk reported an I/O error';
    return new ConfigError('store.unwritable', `cannot write to ${path}: ${cause} (${errorMessage(error)})`, {
      fix: `free some disk space, or check the disk holding ${path} (removed, full, failing); or pass --db <a path on another disk>`,
      cause: error,
    });
  }
  if (['SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_PERM', 'SQLITE_AUTH'].some((family) => code.startsWith(family))) {
    return new ConfigError('store.unwritable', `cannot ${readOnly ? 'open' : 'write to'} ${path} (${errorMessage(error)})`, {
      fix: readOnly
        ? `check the permissions of ${path} and its folder (SQLite also needs to read ${path}-wal and ${path}-shm when they exist)`
        : unwritableFix(path),
      cause: error,
    });
  }
  return invalidStore(path, errorMessage(error), { cause: error });
}

function checkWritableFile(filePath: string): void {
  if (!existsSync(filePath)) return;
  try {
    accessSync(filePath, constants.W_OK);
  } catch (error) {
    throw new ConfigError('store.unwritable', `cannot write to ${filePath} (this user may not write it: ${errorMessage(error)})`, {
      fix: unwritableFix(filePath),
      cause: error,
    });
  }
}

function unwritableFix(path: string): string {
  return `make ${path} and its folder writable, or pass --db <a writable path>; read-only commands (runs, report, export, view) can still read it`;
}

/** The longest file name common file systems (ext4, XFS, APFS, NTFS) take, in bytes. */
const longestFileName = 255;
/** The longest suffix SQLite adds for the files it keeps beside the database. */
const sqliteSuffix = '-journal';

/**
 * SQLite keeps `<name>-journal` and `<name>-wal` beside the database: a name that fits but leaves no room for those
 * fails at open with "unable to open database file", or later at the first write. Said up front, with the reason.
 */
function checkFileNameLength(filePath: string): void {
  const name = basename(filePath);
  const bytes = Buffer.byteLength(name) + Buffer.byteLength(sqliteSuffix);
  if (bytes <= longestFileName) return;
  throw new ConfigError('store.unwritable', `cannot use ${filePath} as a results database: its file name is ${Buffer.byteLength(name)} bytes, and SQLite also creates ${name.length > 40 ? `${name.slice(0, 20)}...${name.slice(-12)}` : name}${sqliteSuffix} beside it, past the ${longestFileName}-byte limit of file names`, {
    fix: `pass --db with a file name of at most ${longestFileName - Buffer.byteLength(sqliteSuffix)} bytes`,
  });
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
  const opened = path === ':memory:' ? undefined : statSync(path, { throwIfNoEntry: false });
  return {
    dialect: 'sqlite',
    location: path,
    all: <Row>(sql: string, parameters?: SqlParameters) => statement(sql).all(...bind(parameters)) as Row[],
    get: <Row>(sql: string, parameters?: SqlParameters) => statement(sql).get(...bind(parameters)) as Row | undefined,
    run: (sql, parameters) => statement(sql).run(...bind(parameters)).changes,
    // IMMEDIATE takes the write lock at BEGIN, so two processes writing one file wait for each other instead of
    // failing to upgrade a read lock; a nested call becomes a savepoint.
    transaction: <T>(work: () => T): T => database.transaction(work).immediate(),
    checkInPlace: () => {
      if (opened === undefined) return;
      const now = statSync(path, { throwIfNoEntry: false });
      if (now !== undefined && now.ino === opened.ino && now.dev === opened.dev) return;
      throw new ConfigError('store.invalid', `the results database ${path} was ${now === undefined ? 'deleted or moved' : 'replaced by another file'} while it was being written: what is written now would be lost with the old file`, {
        fix: 'leave the --db file in place while a command writes to it; the episodes stored before are in the old file if it was moved (or in a backup): continue the run there with toolforge run --resume <run> --db <that file>, or start it again',
      });
    },
    close: () => database.close(),
  };
}

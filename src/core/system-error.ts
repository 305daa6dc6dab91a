/**
 * A file-system error Node raises (a folder where a file was expected, a file the user may not read, a path through
 * a file, a link loop, a full disk) as a ConfigError that names the path and the fix. The places that read and
 * write the user's files turn the errors they expect into their own messages; this is what the CLI says for the
 * rest, instead of a stack trace: the cause is the user's machine, not a bug.
 */
import { ConfigError, ToolForgeError } from './errors.ts';

type SystemError = Error & { code: string; syscall?: string; path?: string; dest?: string };

const writingCalls = new Set(['mkdir', 'write', 'rename', 'unlink', 'rmdir', 'copyfile', 'symlink', 'link', 'chmod', 'utime', 'ftruncate', 'fsync']);

function isSystemError(error: unknown): error is SystemError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && typeof (error as { syscall?: unknown }).syscall === 'string';
}

/** The ConfigError for a file-system error, or undefined when `error` is not one this names. */
export function describeSystemError(error: unknown): ConfigError | undefined {
  if (isSystemError(error)) return describeFileError(error);
  return describeSqliteError(error);
}

function describeFileError(error: SystemError): ConfigError | undefined {
  const path = error.path === undefined ? 'a file' : `'${error.path}'`;
  const writing = writingCalls.has(error.syscall ?? '') || (error.syscall === 'open' && error.code === 'EROFS');
  const code = writing ? 'config.invalid' : 'input.unreadable';
  const make = (problem: string, fix: string): ConfigError => new ConfigError(code, `cannot ${writing ? 'write' : 'read'} ${path}: ${problem}`, { fix, cause: error });
  switch (error.code) {
    case 'EISDIR':
      return make('it is a folder, not a file', `put the file at ${path} in place of the folder (a data set's file: 'toolforge data fetch <name>' restores it), or name another path`);
    case 'EACCES':
    case 'EPERM':
      return make('permission denied', `let this user ${writing ? 'write' : 'read'} ${path} (and its folders), or use another path`);
    case 'ENOTDIR':
      return make('a part of the path is a file, not a folder', 'check the path: every part before its last must be a folder (e.g. $TOOLFORGE_DATA names the data folder)');
    case 'ELOOP':
      return make('its symbolic links form a loop', `replace ${path} with the file the link should lead to`);
    case 'ENAMETOOLONG':
      return make('the path or a name in it is too long for this file system', 'use a shorter path or file name');
    case 'ENOSPC':
    case 'EDQUOT':
      return make('no space left on the device', 'free some disk space, or write to another disk');
    case 'EFBIG':
      return make('the file would be larger than this process may write (a file-size limit, ulimit -f)', 'raise the file-size limit, or write a smaller file');
    case 'EROFS':
      return make('the file system is read-only', 'write to a path on a writable file system');
    case 'EMFILE':
    case 'ENFILE':
      return make('too many open files', "raise the open-file limit (ulimit -n) or lower --concurrency");
    default:
      return undefined;
  }
}

/**
 * Whether `error` is the results database failing to take a write (full disk, I/O error, locked past the busy
 * timeout, read-only; a PostgreSQL server gone, out of disk or shutting down), raw from SQLite or as described here:
 * the machine's fault, so what the run recorded is kept for --resume, never deleted (a delete is a write that fails
 * the same way).
 */
export function isStoreWriteFailure(error: unknown): boolean {
  if (error instanceof ConfigError) return ['store.unwritable', 'store.locked', 'store.unreachable'].includes(error.code);
  if (error instanceof ToolForgeError && error.code === 'store.postgres') {
    // SQLSTATE classes 08 (connection), 53 (disk full, out of memory), 57P (shut down), 58 (I/O); no SQLSTATE: the
    // socket itself failed (ECONNRESET). A statement PostgreSQL refused (a constraint, a syntax error) is not one.
    const state = (error as { sqlState?: unknown }).sqlState;
    return typeof state !== 'string' || !/^[0-9A-Z]{5}$/.test(state) || /^(08|53|57P|58)/.test(state);
  }
  return describeSqliteError(error) !== undefined;
}

/**
 * What SQLite says when a results database cannot take a write: a file the user may not write (its first write
 * fails), another process holding the write lock past the busy timeout, a full disk, an I/O error. Each is the
 * user's machine, not a bug: the message and a fix, and the run it stopped is resumed once it is fixed.
 */
function describeSqliteError(error: unknown): ConfigError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (!(error instanceof Error) || typeof code !== 'string') return undefined;
  const resume = 'then continue the stopped run with the command that finishes it (`toolforge runs`, with the same --db, shows it; finished episodes are kept)';
  if (code.startsWith('SQLITE_READONLY')) {
    return new ConfigError('store.unwritable', `cannot write to the results database (${error.message})`, {
      fix: 'make the --db file and its folder writable, or pass --db <a writable path>; read-only commands (runs, report, export, view) can still read it',
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new ConfigError('store.locked', `the results database stayed locked by another process for more than 5 s (${error.message})`, {
      fix: `let the other process using the --db file finish (a long write, or a sqlite3 shell inside a transaction), ${resume}`,
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_FULL')) {
    return new ConfigError('store.unwritable', `cannot write to the results database: the disk is full (${error.message})`, {
      fix: `free some disk space (or move the --db file to a disk with room), ${resume}`,
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return new ConfigError('store.unwritable', `cannot write to the results database: the disk reported an I/O error (${error.message})`, {
      fix: `check the disk holding the --db file (removed, full, failing), ${resume}`,
      cause: error,
    });
  }
  return undefined;
}

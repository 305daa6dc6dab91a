/**
 * An `--out` path, checked before the work whose result it receives: a sweep or a large report must not run for an
 * hour and then find its folder missing. Every `--out` error says what is wrong in words, with the same fix.
 */
import { accessSync, closeSync, constants, openSync, readSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { fileProblem, isFile } from '../core/file-problem.ts';

const outputFix = 'pass --out with a path in an existing, writable folder (or leave --out out to print to stdout)';

/** The absolute `--out` path, once it is known that a file can be written there. */
export function checkOutputPath(cwd: string, out: string): string {
  const path = resolve(cwd, out);
  const problem = outputPathProblem(path);
  if (problem !== undefined) throw cannotWriteOutput(path, problem);
  return path;
}

/** Why no file can be written at `path` (absolute), or undefined when one can. */
export function outputPathProblem(path: string): string | undefined {
  const stats = statOf(path);
  if (typeof stats === 'string') return stats;
  if (stats?.isDirectory()) return 'it is a folder';
  // Written over, a database (the one this command reads, a cache) would be lost with everything it holds.
  if (stats?.isFile() && isSqliteDatabase(path)) return 'it is a SQLite database (results or a cache), which writing there would destroy';
  const sideFile = /^(.*)-(wal|shm|journal)$/.exec(path);
  if (sideFile && isFile(sideFile[1]) && isSqliteDatabase(sideFile[1])) return `it is the ${sideFile[2]} file of the database ${sideFile[1]}, which writing there would damage`;
  const folder = dirname(path);
  const folderStats = statOf(folder);
  if (typeof folderStats === 'string') return folderStats;
  if (folderStats === undefined) return `its folder ${folder} does not exist`;
  if (!folderStats.isDirectory()) return `${folder} is a file, not a folder`;
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    return `its folder ${folder} is not writable`;
  }
  return undefined;
}

/** A path's stats, undefined when nothing is there, or why it cannot be looked at (a file used as a folder). */
function statOf(path: string): Stats | string | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') {
      for (let folder = dirname(path); folder !== dirname(folder); folder = dirname(folder)) {
        if (isFile(folder)) return `${folder} is a file, not a folder`;
      }
    }
    return outputProblem(path, error);
  }
}

/**
 * Why `--out` could not be written. `after` says what is kept when the failure comes after the work (a sweep's runs
 * are stored, and the report can be written again).
 */
export function cannotWriteOutput(path: string, problem: unknown, after?: string): ConfigError {
  const reason = typeof problem === 'string' ? problem : outputProblem(path, problem);
  const full = ['ENOSPC', 'EDQUOT', 'EFBIG'].includes(String((problem as NodeJS.ErrnoException | undefined)?.code));
  return new ConfigError('config.invalid', `cannot write --out ${path}: ${reason}${after === undefined ? '' : `; ${after}`}`, {
    fix: full ? 'free some disk space (or raise the quota or file-size limit), or pass --out with a path on another disk (or leave --out out to print to stdout)' : outputFix,
    ...(typeof problem === 'string' ? {} : { cause: problem }),
  });
}

/** A write's errno in words: what differs from a read's (fileProblem) is said here, the rest as a read says it. */
function outputProblem(path: string, error: unknown): string {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT': return isFolder(dirname(path)) ? noNewFiles(dirname(path)) : `its folder ${dirname(path)} does not exist`;
    case 'EISDIR': return 'it is a folder';
    case 'ENOSPC': return 'the disk is full';
    case 'EDQUOT': return "the user's disk quota is used up";
    case 'EFBIG': return 'the file would be larger than this process may write (a file-size limit, ulimit -f)';
    case 'EROFS': return 'the file system is read-only';
    default: return fileProblem(path, error);
  }
}

/** Whether `path` is a folder now (a failed write's ENOENT may come from a folder that is there). */
function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** A folder that is there but refuses new files with ENOENT: a kernel file system such as /proc or /sys. */
function noNewFiles(folder: string): string {
  return `the folder ${folder} does not take new files (a system file system such as /proc or /sys refuses them)`;
}

/** Whether the file starts with SQLite's header ("SQLite format 3" and a NUL). */
function isSqliteDatabase(path: string): boolean {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, 'r');
    const header = Buffer.alloc(16);
    return readSync(descriptor, header, 0, 16, 0) === 16 && header.toString('latin1') === 'SQLite format 3\u0000';
  } catch {
    return false;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

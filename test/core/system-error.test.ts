import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { readTextFileSync } from '../../src/core/read-text-file.ts';
import { describeSystemError, isStoreWriteFailure } from '../../src/core/system-error.ts';
import { ToolForgeError } from '../../src/core/errors.ts';
import { PostgresError } from '../../src/store/postgres/synchronous-postgres.ts';
import { temporaryDirectory } from '../runner/test-helpers.ts';

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  assert.fail('expected an error');
}

test('a folder read as a file, and a path through a file, are named with the path and a fix', () => {
  const directory = temporaryDirectory();
  mkdirSync(join(directory, 'slack.yaml'));
  writeFileSync(join(directory, 'afile'), 'x');
  // Node names no path when the read of a folder fails: the project's file reader adds it.
  assert.equal(describeSystemError(thrownBy(() => readFileSync(join(directory, 'slack.yaml'))))?.problem, 'cannot read a file: it is a folder, not a file');
  const folder = describeSystemError(thrownBy(() => readTextFileSync(join(directory, 'slack.yaml'))));
  assert.ok(folder instanceof ConfigError);
  assert.equal(folder.code, 'input.unreadable');
  assert.equal(folder.problem, `cannot read '${join(directory, 'slack.yaml')}': it is a folder, not a file`);
  assert.match(folder.fix ?? '', /toolforge data fetch <name>/);
  const through = describeSystemError(thrownBy(() => mkdirSync(join(directory, 'afile', 'nestful'))));
  assert.ok(through instanceof ConfigError);
  assert.equal(through.code, 'config.invalid');
  assert.equal(through.problem, `cannot write '${join(directory, 'afile', 'nestful')}': a part of the path is a file, not a folder`);
});

test('each file-system cause gets its own words; other errors are left alone', () => {
  const cases: [string, string, RegExp][] = [
    ['EACCES', 'open', /cannot read '\/x': permission denied/],
    ['EPERM', 'rename', /cannot write '\/x': permission denied/],
    ['ELOOP', 'open', /symbolic links form a loop/],
    ['ENAMETOOLONG', 'open', /too long for this file system/],
    ['ENOSPC', 'write', /cannot write '\/x': no space left/],
    ['EROFS', 'open', /cannot write '\/x': the file system is read-only/],
    ['EMFILE', 'open', /too many open files/],
  ];
  for (const [code, syscall, message] of cases) {
    const error = Object.assign(new Error(`${code}: failed`), { code, syscall, path: '/x' });
    const described = describeSystemError(error);
    assert.ok(described, code);
    assert.match(described.message, message, code);
    assert.ok(described.fix, code);
  }
  assert.equal(describeSystemError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED', syscall: 'connect' })), undefined);
  assert.equal(describeSystemError(new TypeError('a bug')), undefined);
  assert.equal(describeSystemError('text'), undefined);
});

test("SQLite's read-only refusal is a store.unwritable error naming --db", () => {
  const error = Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' });
  const described = describeSystemError(error);
  assert.ok(described instanceof ConfigError);
  assert.equal(described.code, 'store.unwritable');
  assert.match(described.fix ?? '', /--db/);
});

test('SQLite refusing a write for a cause on this machine (a lock held too long, a full disk, an I/O error) is a store error with a fix that says how to continue', () => {
  const cases: [string, string, RegExp][] = [
    ['SQLITE_BUSY', 'store.locked', /locked by another process/],
    ['SQLITE_BUSY_SNAPSHOT', 'store.locked', /locked by another process/],
    ['SQLITE_LOCKED', 'store.locked', /locked by another process/],
    ['SQLITE_FULL', 'store.unwritable', /the disk is full/],
    ['SQLITE_IOERR_WRITE', 'store.unwritable', /I\/O error/],
  ];
  for (const [sqliteCode, code, message] of cases) {
    const described = describeSystemError(Object.assign(new Error('database says no'), { code: sqliteCode }));
    assert.ok(described instanceof ConfigError, sqliteCode);
    assert.equal(described.code, code, sqliteCode);
    assert.match(described.message, message, sqliteCode);
    assert.match(described.message, /database says no/, sqliteCode);
    // Not 'run --resume' for every command: a served run, a worker and an eval set continue differently.
    assert.match(described.fix ?? '', /`toolforge runs`, with the same --db, shows it/, sqliteCode);
  }
  // A constraint is a bug or a damaged file, not the machine: left to the caller.
  assert.equal(describeSystemError(Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })), undefined);
});

test('a store failing a write is told apart from a store refusing a statement: the first keeps the run for --resume', () => {
  const sqlite = (code: string): Error => Object.assign(new Error('database says no'), { code });
  const postgres = (sqlState: string | undefined): PostgresError => new PostgresError('PostgreSQL: no', { ...(sqlState === undefined ? {} : { sqlState }), fix: 'see the message' });
  const failures: [string, unknown][] = [
    ['SQLite full disk', sqlite('SQLITE_FULL')], ['SQLite I/O error', sqlite('SQLITE_IOERR_WRITE')], ['SQLite busy', sqlite('SQLITE_BUSY')],
    ['described full disk', describeSystemError(sqlite('SQLITE_FULL'))],
    ['server unreachable', new ConfigError('store.unreachable', 'cannot connect to PostgreSQL')],
    ['connection lost', postgres('08006')], ['disk full', postgres('53100')], ['admin shutdown', postgres('57P01')], ['I/O error', postgres('58030')],
    ['socket reset', postgres('ECONNRESET')], ['no state', postgres(undefined)],
  ];
  for (const [name, error] of failures) assert.equal(isStoreWriteFailure(error), true, name);
  const refusals: [string, unknown][] = [
    ['SQLite constraint', sqlite('SQLITE_CONSTRAINT_FOREIGNKEY')], ['damaged store', new ConfigError('store.invalid', 'damaged')],
    ['unique violation', postgres('23505')], ['syntax error', postgres('42601')], ['a task refused', new ConfigError('input.invalid', 'task 3 is not a task')],
    ['a bug', new ToolForgeError('internal', 'oops')], ['a plain error', new Error('no')],
  ];
  for (const [name, error] of refusals) assert.equal(isStoreWriteFailure(error), false, name);
});

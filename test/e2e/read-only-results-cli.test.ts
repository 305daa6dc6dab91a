/**
 * The commands that only read results (runs, report, export) work on any results file the user can read: one in a
 * folder the user cannot write (SQLite's WAL reader must create `<file>-shm` beside it), and one written by an older
 * ToolForge that the user cannot upgrade in place. Both are read through an upgraded private copy that is removed
 * afterwards; nothing is written beside the file. A command that writes says it cannot, in words.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { latestSchemaVersion, migrationStatements, migrations } from '../../src/store/store-migrations.ts';
import { keylessEnvironment, runCli, spawnCliUnprivileged, temporaryDirectory, unprivilegedPrefix } from './run-cli.ts';

const unprivileged = unprivilegedPrefix();
const skip = 'skip' in unprivileged ? unprivileged.skip : false;
const prefix = 'prefix' in unprivileged ? unprivileged.prefix : [];

/** A results file as the ToolForge before the latest schema change wrote it, with one finished run. */
function writeOlderDatabase(path: string): void {
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  old.exec('CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)');
  for (const migration of migrations.filter((candidate) => candidate.version < latestSchemaVersion)) {
    for (const statement of migrationStatements(migration, 'sqlite')) old.exec(statement);
    old.prepare('INSERT INTO schema_version VALUES (?, ?)').run(migration.version, '2026-01-01T00:00:00.000Z');
  }
  old.prepare(`INSERT INTO runs (id, created_at, suite_id, suite_version, model, base_url, mode, trials, concurrency, seed, params, settings, provenance, status)
    VALUES ('run-older', '2026-01-01T00:00:00.000Z', 'funcgen', '1', 'builtin/oracle', NULL, NULL, 1, 1, 7, '{}', '{}', '{}', 'finished')`).run();
  old.close();
}

function schemaVersion(path: string): number {
  const connection = new Database(path, { readonly: true });
  try {
    return (connection.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: number }).version;
  } finally {
    connection.close();
  }
}

describe('results files the user cannot write', { skip }, () => {
  const directory = temporaryDirectory();
  const readOnlyFolder = join(directory, 'read-only');
  const temporary = join(directory, 'tmp');
  const environment = { ...keylessEnvironment(), TMPDIR: temporary };
  let runId = '';

  before(async () => {
    mkdirSync(readOnlyFolder);
    mkdirSync(temporary);
    const result = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', join(readOnlyFolder, 'results.db')], { cwd: directory });
    assert.equal(result.code, 0, result.stderr);
    runId = /run (funcgen-\S+):/.exec(result.stdout)?.[1] ?? '';
    writeOlderDatabase(join(readOnlyFolder, 'older.db'));
    chmodSync(join(readOnlyFolder, 'older.db'), 0o444);
    chmodSync(readOnlyFolder, 0o555);
  });
  after(() => chmodSync(readOnlyFolder, 0o755));

  test('runs, report and export read a file in a read-only folder, write nothing beside it and leave no copy', async () => {
    const database = join(readOnlyFolder, 'results.db');
    const before = readdirSync(readOnlyFolder).sort();
    const runs = await spawnCliUnprivileged(prefix, ['runs', '--db', database], { cwd: directory, env: environment });
    assert.equal(runs.code, 0, runs.stderr);
    assert.match(runs.stdout, new RegExp(`${runId} .* finished +2 +1 +2 +100\\.0%`));
    const report = await spawnCliUnprivileged(prefix, ['report', runId, '--db', database], { cwd: directory, env: environment });
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /pass rate 100\.0%/);
    const exported = await spawnCliUnprivileged(prefix, ['export', runId, '--db', database], { cwd: directory, env: environment });
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(exported.stdout.trim().split('\n').length, 1 + 2 + 2 + 1);
    assert.deepEqual(readdirSync(readOnlyFolder).sort(), before);
    assert.deepEqual(readdirSync(temporary), []);
  });

  test('a file from an older ToolForge that cannot be upgraded in place is read through an upgraded copy, and stays as it was', async () => {
    const database = join(readOnlyFolder, 'older.db');
    const runs = await spawnCliUnprivileged(prefix, ['runs', '--db', database, '--json'], { cwd: directory, env: environment });
    assert.equal(runs.code, 0, runs.stderr);
    assert.deepEqual((JSON.parse(runs.stdout) as { id: string; status: string }[]).map((run) => [run.id, run.status]), [['run-older', 'finished']]);
    assert.equal(schemaVersion(database), latestSchemaVersion - 1);
    assert.deepEqual(readdirSync(temporary), []);
  });

  test("a copy left by a reader that was killed is removed by the next reader; a running reader's copy is left alone", async () => {
    // A process that has ended: its pid is not running (a pid reused since would only keep its copy).
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const abandoned = join(temporary, `toolforge-read-${ended.stdout}-AbCdEf`);
    const running = join(temporary, `toolforge-read-${process.pid}-GhIjKl`);
    const notACopy = join(temporary, 'toolforge-read-notes');
    for (const folder of [abandoned, running, notACopy]) {
      mkdirSync(folder);
      writeFileSync(join(folder, 'results.db'), 'a copy');
    }
    const runs = await spawnCliUnprivileged(prefix, ['runs', '--db', join(readOnlyFolder, 'results.db')], { cwd: directory, env: environment });
    assert.equal(runs.code, 0, runs.stderr);
    assert.deepEqual(readdirSync(temporary).sort(), [running, notACopy].map((folder) => basename(folder)).sort());
    for (const folder of [running, notACopy]) rmSync(folder, { recursive: true });
  });

  test('a command that writes is told the file cannot be written, not that it is not a results file', async () => {
    for (const name of ['results.db', 'older.db']) {
      const result = await spawnCliUnprivileged(prefix, ['run', 'funcgen', '--model', 'builtin/planner', '--count', '1', '--db', join(readOnlyFolder, name)], { cwd: directory, env: environment });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, new RegExp(`error: cannot write to ${join(readOnlyFolder, name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `));
      assert.match(result.stderr, /fix: make .* and its folder writable, or pass --db <a writable path>; read-only commands \(runs, report, export, view\) can still read it/);
      assert.doesNotMatch(result.stderr, /not a ToolForge results database/);
    }
  });

  test('a file the user may not write, in a folder the user may write: run, delete and rescore say so (exit 2), and the file is unchanged', async () => {
    const folder = join(directory, 'writable');
    mkdirSync(folder);
    const database = join(folder, 'results.db');
    const first = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '1', '--db', database, '--json'], { cwd: directory });
    assert.equal(first.code, 0, first.stderr);
    const storedRun = (JSON.parse(first.stdout) as { runId: string }).runId;
    chmodSync(folder, 0o777);
    chmodSync(database, 0o444);
    const bytes = readFileSync(database);
    for (const args of [['run', 'funcgen', '--model', 'builtin/planner', '--count', '1'], ['delete', storedRun], ['rescore', storedRun]]) {
      const result = await spawnCliUnprivileged(prefix, [...args, '--db', database], { cwd: directory, env: environment });
      assert.equal(result.code, 2, `${args[0]}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`^error: cannot write to ${database.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`, 'm'), args[0]);
      assert.match(result.stderr, /fix: make .* and its folder writable/, args[0]);
      assert.doesNotMatch(result.stderr, /SqliteError|\n\s+at /, args[0]);
    }
    assert.deepEqual(readFileSync(database), bytes);
  });

  test('a file the user cannot read is named as such', async () => {
    const folder = join(directory, 'unreadable');
    mkdirSync(folder);
    const database = join(folder, 'results.db');
    assert.equal((await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '1', '--db', database], { cwd: directory })).code, 0);
    chmodSync(database, 0o000);
    const result = await spawnCliUnprivileged(prefix, ['runs', '--db', database], { cwd: directory, env: environment });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /error: cannot open .*results\.db \(.*\)\n {2}fix: check the permissions of /);
    assert.deepEqual(readdirSync(temporary), []);
  });
});

/**
 * Paths a command writes to that cannot take a file: every `--out` (report, sweep, export, generate) and the response
 * cache. Each is named in words before the work starts (a sweep must not run every point and then fail to write its
 * report), and a file on the way is not a crash.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { keylessEnvironment, runCli, temporaryDirectory } from './run-cli.ts';

const fix = /\n {2}fix: pass --out with a path in an existing, writable folder/;

function runCount(database: string): number {
  if (!existsSync(database)) return 0;
  const connection = new Database(database, { readonly: true });
  try {
    return (connection.prepare('SELECT count(*) AS count FROM runs').get() as { count: number }).count;
  } finally {
    connection.close();
  }
}

describe('--out paths that cannot take a file', () => {
  const directory = temporaryDirectory();
  writeFileSync(join(directory, 'plain.txt'), 'a file\n');
  mkdirSync(join(directory, 'folder'));

  const badPaths: { out: string; problem: RegExp }[] = [
    { out: 'missing/report.html', problem: /its folder .*missing does not exist/ },
    { out: 'folder', problem: /: it is a folder$/m },
    { out: 'plain.txt/report.html', problem: /: .*plain\.txt is a file, not a folder$/m },
    { out: 'plain.txt/deeper/report.html', problem: /: .*plain\.txt is a file, not a folder$/m },
  ];

  test('a sweep names its --out before it runs a point, and stores no run', async () => {
    const database = join(directory, 'sweep.db');
    for (const { out, problem } of badPaths) {
      const result = await runCli(['sweep', 'funcgen', '--grid', 'core=3,4', '--model', 'builtin/planner', '--count', '1', '--db', database, '--format', 'html', '--out', out], { cwd: directory });
      assert.equal(result.code, 2, `${out}: ${result.stderr}`);
      assert.match(result.stderr, problem, out);
      assert.match(result.stderr, fix, out);
      assert.doesNotMatch(result.stderr, /point 1\/2/, `${out}: no point runs before the path is checked`);
      assert.equal(runCount(database), 0, out);
    }
  });

  test('report, export and generate name the same problems, and leave no file behind', async () => {
    const database = join(directory, 'results.db');
    const run = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '1', '--db', database], { cwd: directory });
    assert.equal(run.code, 0, run.stderr);
    // A reader of a WAL database may leave its -shm and -wal files: only files of ours count.
    const files = (): string[] => readdirSync(directory).filter((name) => !/\.db-(shm|wal)$/.test(name)).sort();
    const before = files();
    for (const command of [['report', '--format', 'csv'], ['export', 'latest'], ['generate', 'funcgen', '--count', '1']]) {
      for (const { out, problem } of badPaths) {
        const result = await runCli([...command, ...(command[0] === 'generate' ? [] : ['--db', database]), '--out', out], { cwd: directory });
        assert.equal(result.code, 2, `${command[0]} ${out}: ${result.stderr}`);
        assert.match(result.stderr, problem, `${command[0]} ${out}`);
        assert.match(result.stderr, fix, `${command[0]} ${out}`);
        assert.doesNotMatch(result.stderr, /\n {4}at /, `${command[0]} ${out}: no stack`);
      }
    }
    assert.deepEqual(files(), before);
    assert.deepEqual(readdirSync(join(directory, 'folder')), []);
    const written = await runCli(['report', '--format', 'csv', '--db', database, '--out', 'folder/report.csv'], { cwd: directory });
    assert.equal(written.code, 0, written.stderr);
    assert.deepEqual(readdirSync(join(directory, 'folder')), ['report.csv'], 'written in place, no partial file left');
  });

  test('an --out that is a database (the one the command reads, or its -wal file) is refused, and the database keeps its runs', async () => {
    const database = join(directory, 'kept.db');
    const run = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '1', '--db', database], { cwd: directory });
    assert.equal(run.code, 0, run.stderr);
    for (const [command, out, problem] of [
      [['export', 'latest'], 'kept.db', /cannot write --out .*kept\.db: it is a SQLite database \(results or a cache\), which writing there would destroy/],
      [['report', '--format', 'html'], 'kept.db', /it is a SQLite database/],
      [['report', '--format', 'csv'], 'kept.db-wal', /it is the wal file of the database .*kept\.db, which writing there would damage/],
    ] as const) {
      const result = await runCli([...command, '--db', database, '--out', out], { cwd: directory });
      assert.equal(result.code, 2, `${command[0]} ${out}: ${result.stderr}`);
      assert.match(result.stderr, problem);
      assert.equal(runCount(database), 1, `${command[0]} ${out}: the database is intact`);
    }
    const generated = await runCli(['generate', 'funcgen', '--count', '1', '--out', 'kept.db'], { cwd: directory });
    assert.equal(generated.code, 2, generated.stderr);
    assert.equal(runCount(database), 1);
  });

  test('a response cache under a file is named as such, with the --cache-db fix', async () => {
    const result = await runCli(['run', 'funcgen', '--model', 'openai/gpt-4.1', '--count', '1', '--cache', '--cache-db', 'plain.txt/cache.db', '--db', join(directory, 'cache-run.db')], {
      cwd: directory, env: { ...keylessEnvironment(), OPENAI_API_KEY: 'test-key' },
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /cannot create the response cache .*plain\.txt\/cache\.db: .*plain\.txt is a file, not a folder/);
    assert.match(result.stderr, /fix: pass --cache-db <path> in a folder you can write to/);
  });

  // procfs is there but refuses a new file with ENOENT, which read alone says "no such folder".
  test('an --out in a folder that refuses new files (/proc) is not called a missing folder', { skip: existsSync('/proc/self') ? false : 'no /proc on this machine' }, async () => {
    for (const command of [['generate', 'funcgen', '--count', '1'], ['report', '--format', 'csv', '--db', join(directory, 'results.db')]]) {
      const result = await runCli([...command, '--out', '/proc/toolforge-out.jsonl'], { cwd: directory });
      assert.equal(result.code, 2, `${command[0]}: ${result.stderr}`);
      assert.match(result.stderr, /cannot write --out \/proc\/toolforge-out\.jsonl: (the folder \/proc does not take new files \(a system file system such as \/proc or \/sys refuses them\)|its folder \/proc is not writable)/, command[0]);
      assert.doesNotMatch(result.stderr, /does not exist/, command[0]);
      assert.match(result.stderr, fix, command[0]);
    }
  });
});

test('--out - is the standard output for generate, export and report, as it is to most tools: no file named - is written', async () => {
  const directory = temporaryDirectory();
  const generated = await runCli(['generate', 'funcgen', '--count', '2', '--out', '-'], { cwd: directory });
  assert.equal(generated.code, 0, generated.stderr);
  assert.deepEqual(generated.stdout.trim().split('\n').map((line) => JSON.parse(line).id), ['funcgen/0/0', 'funcgen/0/1']);
  const run = await runCli(['run', 'funcgen', '--count', '2', '--model', 'builtin/oracle', '--db', 'r.db', '--json'], { cwd: directory });
  assert.equal(run.code, 0, run.stderr);
  const exported = await runCli(['export', 'latest', '--db', 'r.db', '--out', '-'], { cwd: directory });
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(JSON.parse(exported.stdout.split('\n')[0] as string).run.id, JSON.parse(run.stdout).runId);
  const report = await runCli(['report', 'latest', '--db', 'r.db', '--format', 'json', '--out', '-'], { cwd: directory });
  assert.equal(report.code, 0, report.stderr);
  assert.equal(JSON.parse(report.stdout).passRate, 1);
  assert.equal(existsSync(join(directory, '-')), false);
});

test('- where a command reads a file (--tasks, --config, --prices, --db, import <file>, replay/-) is refused naming the flag, not looked for as a file named -', async () => {
  const directory = temporaryDirectory();
  for (const [args, message, fix] of [
    [['run', '--tasks', '-', '--model', 'builtin/oracle'], /--tasks - \(the standard input\) cannot be read: a run reads its tasks file more than once/, /toolforge generate <suite> --out tasks\.jsonl/],
    [['run', '--config', '-'], /--config - \(the standard input\) cannot be read/, /pass --config <its path>/],
    [['report', '--prices', '-'], /--prices - \(the standard input\) cannot be read/, /pass --prices <its path>/],
    [['runs', '--db', '-'], /--db - \(the standard input\) cannot be read/, /pass --db <path>, or leave it out/],
    [['import', '-'], /the <file> argument '-' \(the standard input\) cannot be read: import reads a file/, /toolforge export <run> --out run\.jsonl/],
    [['run', 'funcgen', '--count', '1', '--model', 'replay/-', '--db', 'r.db'], /replay\/- \(the standard input\) cannot be read/, /replay\/<path\/to\/outputs\.jsonl>/],
  ] as const) {
    const result = await runCli([...args], { cwd: directory });
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(' '));
    assert.match(result.stderr, fix, args.join(' '));
  }
  assert.equal(existsSync(join(directory, 'r.db')), false, 'a refused replay/- records no run');
});

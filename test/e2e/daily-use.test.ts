/**
 * What a new user hit in daily use (issue "Daily use"): unusable --db locations, replay files that do not cover
 * the run, runs that scored nothing, CI gates, flags given twice, and the small things around them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openResultsStore } from '../../src/store/results-store.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { sampleRun, saveLargeRun } from '../runner/test-helpers.ts';
import { binPath, keylessEnvironment, runCli, spawnCli, temporaryDirectory } from './run-cli.ts';

async function generateNestful(directory: string, count: number): Promise<{ file: string; ids: string[] }> {
  const result = await runCli(['generate', 'nestful', '--count', String(count), '--seed', '3', '--out', 'tasks.jsonl'], { cwd: directory });
  assert.equal(result.code, 0, result.stderr);
  const file = join(directory, 'tasks.jsonl');
  const ids = readFileSync(file, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id);
  return { file, ids };
}

function writeReplay(directory: string, lines: object[]): string {
  const file = join(directory, 'outputs.jsonl');
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return file;
}

describe('--db locations that cannot hold a database', () => {
  test('a folder that cannot be created (under /proc) fails at once with error + fix and exit 2, before generating', async () => {
    const result = await spawnCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', '/proc/toolforge-test/x/results.db'],
      { cwd: temporaryDirectory(), env: keylessEnvironment() });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^error: cannot create the results database \/proc\/toolforge-test\/x\/results\.db: cannot create the folder/m);
    assert.match(result.stderr, /fix: pass --db <path> in a folder you can write to/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  });

  test('a file where a folder should be (EEXIST/ENOTDIR) is a clear error, not a stack trace', async () => {
    const directory = temporaryDirectory();
    writeFileSync(join(directory, 'afile'), 'x');
    const result = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', 'afile/sub/results.db'], { cwd: directory });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /afile is a file, not a folder/);
    assert.match(result.stderr, /fix: /);
  });

  test('a database locked by another process has its own message', async () => {
    const directory = temporaryDirectory();
    assert.equal((await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '1', '--db', 'r.db'], { cwd: directory })).code, 0);
    const holder = new Database(join(directory, 'r.db'));
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const result = await spawnCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '1', '--db', 'r.db'], { cwd: directory, env: keylessEnvironment() });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /is locked by another process/);
      assert.doesNotMatch(result.stderr, /is not a ToolForge results database/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  test('read-only commands never write: runs, report and export leave the file byte-identical', async () => {
    const directory = temporaryDirectory();
    assert.equal((await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', 'r.db'], { cwd: directory })).code, 0);
    // Fold the WAL into the main file so any later write would show in its bytes.
    const database = new Database(join(directory, 'r.db'));
    database.pragma('wal_checkpoint(TRUNCATE)');
    database.close();
    const before = readFileSync(join(directory, 'r.db'));
    for (const args of [['runs'], ['report'], ['report', 'latest', '--format', 'json'], ['export', 'latest']]) {
      const result = await runCli([...args, '--db', 'r.db'], { cwd: directory });
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    }
    assert.ok(readFileSync(join(directory, 'r.db')).equals(before));
  });

  test('a file that is not a database still says so', async () => {
    const directory = temporaryDirectory();
    writeFileSync(join(directory, 'notes.db'), 'hello, not sqlite, but long enough to have a header of sorts............................................');
    const result = await runCli(['runs', '--db', 'notes.db'], { cwd: directory });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /is not a ToolForge results database/);
  });
});

describe('replay files that do not cover the run', () => {
  test('outputs made for other tasks (a data set\'s samples, another seed) say so, and which settings make the tasks they were made for', async () => {
    const directory = temporaryDirectory();
    const { ids } = await generateNestful(directory, 2);
    const replay = writeReplay(directory, [{ taskId: 'nestful/executable-data/0', output: '[]' }, { taskId: 'nestful/executable-data/1', output: '[]' }]);
    const refused = await runCli(['run', '--tasks', 'tasks.jsonl', 'nestful', '--model', `replay/${replay}`, '--db', 'r.db'], { cwd: directory });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, new RegExp(`has no output for 2 of 2 tasks \\(${ids[0]}, ${ids[1]}\\)`));
    assert.match(refused.stderr, /fix: its outputs are for other tasks \(nestful\/executable-data\/0, nestful\/executable-data\/1\): run the tasks they were made for \(.*--set data=<file>/);
    assert.doesNotMatch(refused.stderr, /--allow-missing/);
  });

  test('missing outputs stop the run before it is created, naming the first ids; --allow-missing scores them as failures', async () => {
    const directory = temporaryDirectory();
    const { ids } = await generateNestful(directory, 3);
    const replay = writeReplay(directory, [{ taskId: ids[0], output: '[]' }, { taskId: 'nestful/not-a-task', output: '[]' }]);
    const refused = await runCli(['run', '--tasks', 'tasks.jsonl', 'nestful', '--model', `replay/${replay}`, '--db', 'r.db'], { cwd: directory });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, new RegExp(`has no output for 2 of 3 tasks \\(${ids[1]}, ${ids[2]}\\)`));
    assert.match(refused.stderr, /fix: .*--allow-missing/);
    // Refused before any run was recorded.
    assert.equal(JSON.parse((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory })).stdout).length, 0);

    const allowed = await runCli(['run', '--tasks', 'tasks.jsonl', 'nestful', '--model', `replay/${replay}`, '--db', 'r.db', '--allow-missing', '--json'], { cwd: directory });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stderr, /2 tasks have no stored output and are scored as failures/);
    assert.match(allowed.stderr, /1 stored outputs name tasks that are not in this run \(nestful\/not-a-task\)/);
    assert.equal(JSON.parse(allowed.stdout).episodes, 3);
    const exported = (await runCli(['export', 'latest', '--db', 'r.db'], { cwd: directory })).stdout;
    assert.deepEqual(JSON.parse(exported.split('\n')[0]).run.provenance.missingOutputs, [ids[1], ids[2]]);
  });
});

describe('exit codes for CI', () => {
  test('--fail-under exits 4 below the threshold and 0 at or above it; --fail-under-lower reads the interval', async () => {
    const directory = temporaryDirectory();
    const base = ['run', 'funcgen', '--count', '4', '--db', 'r.db'];
    const random = await runCli([...base, '--model', 'builtin/random', '--fail-under', '50%'], { cwd: directory });
    assert.equal(random.code, 4, random.stderr);
    assert.match(random.stderr, /--fail-under: the pass rate 0\.0% is below 50\.0%/);
    const planner = await runCli([...base, '--model', 'builtin/planner', '--fail-under', '0.9'], { cwd: directory });
    assert.equal(planner.code, 0, planner.stderr);
    // 4 of 4 passed: the Wilson lower bound is 51.0%, below 0.9.
    const lower = await runCli([...base, '--model', 'builtin/planner', '--fail-under', '0.9', '--fail-under-lower'], { cwd: directory });
    assert.equal(lower.code, 4, lower.stderr);
    assert.match(lower.stderr, /lower bound 51\.0% is below 90\.0%/);
  });

  test('bad --fail-under values and flags given twice are usage errors with a fix line', async () => {
    const directory = temporaryDirectory();
    for (const args of [
      ['run', 'funcgen', '--model', 'builtin/planner', '--fail-under', '1.5'],
      ['run', 'funcgen', '--model', 'builtin/planner', '--model', 'builtin/random'],
      ['run', 'funcgen', '--model', 'openai-compatible/x', '--base-url', 'localhost:8000'],
      ['run', 'funcgen', '--model', 'builtin/planner', '--count', 'abc'],
      ['run', 'funcgen', '--nope'],
    ]) {
      const result = await runCli(args, { cwd: directory });
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, /^error: /m, args.join(' '));
      assert.match(result.stderr, /fix: /, `${args.join(' ')}: ${result.stderr}`);
    }
    const twice = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--model', 'builtin/random'], { cwd: directory });
    assert.match(twice.stderr, /--model was given twice/);
    assert.equal(existsSync(join(directory, '.toolforge')), false, 'nothing was created');
  });

  test('a flag that only means something beside another is refused without it, before anything is stored', async () => {
    const directory = temporaryDirectory();
    writeFileSync(join(directory, 'outputs.jsonl'), '{"taskId": "funcgen/0/0", "output": "x"}\n');
    writeFileSync(join(directory, 'set.yaml'), 'models:\n  - ref: builtin/planner\nsuites:\n  - id: funcgen\n');
    for (const [args, message, fix] of [
      [['run', 'funcgen', '--model', 'builtin/planner', '--fail-under-lower'], /--fail-under-lower compares .* with --fail-under, which is not given/, /fix: add --fail-under <rate>/],
      [['run', '--config', 'set.yaml', '--fail-under-lower'], /--fail-under-lower compares/, /fix: add --fail-under/],
      [['run', 'funcgen', '--model', 'builtin/planner', '--phrasing-base-url', 'http://127.0.0.1:9/v1'], /--phrasing-base-url is the endpoint of the --phrasing-model, which is not given/, /fix: add --phrasing-model <ref>/],
      [['generate', 'nestful', '--base-url', 'http://127.0.0.1:9/v1'], /--base-url is the endpoint of the --phrasing-model, which is not given/, /fix: add --phrasing-model <ref>, or drop --base-url/],
      [['generate', 'nestful', '--phrasing-base-url', 'http://127.0.0.1:9/v1'], /--phrasing-base-url is the endpoint/, /drop --phrasing-base-url/],
      [['run', 'funcgen', '--model', 'builtin/planner', '--base-url', 'http://127.0.0.1:9/v1'], /--base-url is the endpoint of a provider's model; builtin\/planner runs in this process/, /fix: drop --base-url/],
      [['run', 'funcgen', '--model', 'replay/outputs.jsonl', '--base-url', 'http://127.0.0.1:9/v1'], /replay\/outputs\.jsonl reads stored outputs and calls none/, /fix: drop --base-url/],
      [['run', 'funcgen', '--model', 'builtin/oracle', '--allow-missing'], /--allow-missing scores the tasks a replay file has no output for; builtin\/oracle is not a replay model/, /fix: drop --allow-missing/],
      [['run', 'funcgen', '--agent-command', 'sleep 1', '--base-url', 'http://127.0.0.1:9/v1'], /--agent-command runs its own agent, so --base-url has nothing to change/, /fix: drop --base-url/],
    ] as const) {
      const result = await runCli([...args], { cwd: directory });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
      assert.match(result.stderr, fix, args.join(' '));
    }
    assert.equal(existsSync(join(directory, '.toolforge')), false, 'nothing was created');
  });
});

describe('runs, resume, import, count', () => {
  test('runs shows the mode each task ran in and the pass rate, filters by suite/model/status, and says why a filter matched nothing', async () => {
    const directory = temporaryDirectory();
    await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', 'r.db'], { cwd: directory });
    await runCli(['run', 'funcgen', '--model', 'builtin/random', '--count', '2', '--db', 'r.db', '--mode', 'react'], { cwd: directory });
    const table = (await runCli(['runs', '--db', 'r.db'], { cwd: directory })).stdout;
    assert.match(table, /calls \(default\)/);
    assert.doesNotMatch(table, /\bdefault\b(?! *\))/);
    assert.match(table, /100\.0%/);
    const json = JSON.parse((await runCli(['runs', '--json', '--db', 'r.db', '--model', 'builtin/planner'], { cwd: directory })).stdout);
    assert.equal(json.length, 1);
    assert.equal(json[0].passRate, 1);
    const unknown = await runCli(['runs', '--db', 'r.db', '--suite', 'nope'], { cwd: directory });
    assert.match(unknown.stdout, /no runs match suite 'nope'\. 'nope' is not a suite/);
    assert.doesNotMatch(unknown.stdout, /no runs recorded yet/);
    const badStatus = await runCli(['runs', '--db', 'r.db', '--status', 'done'], { cwd: directory });
    assert.equal(badStatus.code, 2);
  });

  test('run --resume latest resumes the newest run; a new --base-url is recorded in its provenance', async () => {
    const directory = temporaryDirectory();
    const first = JSON.parse((await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', 'r.db', '--json'], { cwd: directory })).stdout);
    const resumed = await runCli(['run', '--resume', 'latest', '--db', 'r.db', '--base-url', 'http://127.0.0.1:9/v1', '--json'], { cwd: directory });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(JSON.parse(resumed.stdout).runId, first.runId);
    const header = JSON.parse((await runCli(['export', first.runId, '--db', 'r.db'], { cwd: directory })).stdout.split('\n')[0]);
    assert.equal(header.run.baseUrl, 'http://127.0.0.1:9/v1');
    assert.equal(header.run.provenance.resumes.length, 1);
    assert.equal(header.run.provenance.resumes[0].baseUrl, 'http://127.0.0.1:9/v1');
  });

  test('a failed import leaves no database behind', async () => {
    const directory = temporaryDirectory();
    writeFileSync(join(directory, 'bad.jsonl'), '{"not": "an export"}\n');
    const result = await runCli(['import', 'bad.jsonl', '--db', 'fresh.db'], { cwd: directory });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(existsSync(join(directory, 'fresh.db')), false);
  });

  /** A stored run of 600 tasks (more episodes than one page of a paged read), exported by the CLI to big.jsonl. */
  async function largeRun(directory: string): Promise<string[]> {
    const store = openResultsStore(join(directory, 'big.db'));
    saveLargeRun(store, sampleRun('run-big', { trials: 1 }), await createFakeSuite().generate({ seed: 3, count: 600, params: {} }), 3000);
    store.close();
    const exported = await runCli(['export', 'run-big', '--db', 'big.db', '--out', 'big.jsonl'], { cwd: directory });
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stderr, /exported 1202 lines to .*big\.jsonl/);
    return readFileSync(join(directory, 'big.jsonl'), 'utf8').trimEnd().split('\n');
  }

  test('an import with a bad line after a thousand good ones imports nothing, names the line, and leaves no database or folder behind', async () => {
    const directory = temporaryDirectory();
    const lines = await largeRun(directory);
    const bad = JSON.parse(lines[1099]) as { episode: { score: { value: number } } };
    bad.episode.score.value = 2;
    writeFileSync(join(directory, 'bad.jsonl'), `${[...lines.slice(0, 1099), JSON.stringify(bad), ...lines.slice(1100)].join('\n')}\n`);
    const fresh = await runCli(['import', 'bad.jsonl', '--db', 'fresh/deeper/r.db'], { cwd: directory });
    assert.equal(fresh.code, 2, fresh.stderr);
    assert.match(fresh.stderr, /bad\.jsonl:1100: field 'episode\.score\.value'/);
    assert.equal(existsSync(join(directory, 'fresh')), false, 'the database and the folders made for it are gone');
    // Into a database that has a run already: that run is kept, nothing of the bad file is.
    const existing = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', 'r.db'], { cwd: directory });
    assert.equal(existing.code, 0, existing.stderr);
    const before = (await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory })).stdout;
    assert.equal((await runCli(['import', 'bad.jsonl', '--db', 'r.db'], { cwd: directory })).code, 2);
    assert.equal((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory })).stdout, before);
    // The good file imports, and exports again byte for byte.
    const good = await runCli(['import', 'big.jsonl', '--db', 'r.db'], { cwd: directory });
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /imported run run-big \(fake-sum, builtin\/oracle, 600 tasks\)/);
    assert.equal((await runCli(['export', 'run-big', '--db', 'r.db'], { cwd: directory })).stdout, readFileSync(join(directory, 'big.jsonl'), 'utf8'));
  });

  test('an export that fails part way leaves no --out file, and an older file of that name as it was', async () => {
    const directory = temporaryDirectory();
    const lines = await largeRun(directory);
    // A damaged episode near the end: its transcript claims more prompt messages than its task has.
    const damaged = JSON.parse(lines[1000]) as { episode: { taskId: string } };
    const database = new Database(join(directory, 'big.db'));
    database.prepare('UPDATE episodes SET prompt_messages = 99 WHERE task_id = ?').run(damaged.episode.taskId);
    database.close();
    writeFileSync(join(directory, 'old.jsonl'), 'an older export\n');
    for (const out of ['old.jsonl', 'new.jsonl']) {
      const result = await runCli(['export', 'run-big', '--db', 'big.db', '--out', out], { cwd: directory });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /starts with its task's first 99 prompt messages/);
    }
    assert.equal(readFileSync(join(directory, 'old.jsonl'), 'utf8'), 'an older export\n');
    assert.deepEqual(readdirSync(directory).filter((name) => /new|partial/.test(name)), []);
  });

  test('--count beyond what a suite has is an error, not a silent smaller run', async () => {
    const directory = temporaryDirectory();
    const tool = { name: 'add', description: 'adds two numbers', parameters: { a: { type: 'number' }, b: { type: 'number' } }, output_parameters: { result: { type: 'number' } } };
    const sample = (id: string) => ({ sample_id: id, input: 'What is 2 plus 3?', tools: [tool], output: [{ name: 'add', label: '$var_1', arguments: { a: 2, b: 3 } }], gold_answer: 5 });
    writeFileSync(join(directory, 'two.jsonl'), `${JSON.stringify(sample('s1'))}\n${JSON.stringify(sample('s2'))}\n`);
    const result = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--set', `data=${join(directory, 'two.jsonl')}`, '--count', '5', '--db', 'r.db'], { cwd: directory });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /suite 'nestful' has only 2 tasks for these settings, fewer than --count 5/);
    assert.match(result.stderr, /fix: pass --count 2 or less/);
    const all = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--set', `data=${join(directory, 'two.jsonl')}`, '--count', '2', '--db', 'r.db', '--json'], { cwd: directory });
    assert.equal(all.code, 0, all.stderr);
    assert.equal(JSON.parse(all.stdout).passRate, 1);
  });
});

describe('the process', () => {
  test('a reader that closes the pipe early (| head) ends quietly', async () => {
    const directory = temporaryDirectory();
    const child = spawn(process.execPath, [binPath, 'suites'], { cwd: directory, env: keylessEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolvePromise) => child.on('close', resolvePromise));
    assert.doesNotMatch(stderr, /EPIPE|\n\s+at /);
    assert.equal(code, 0);
  });

  test('a full disk behind standard output is an error naming it, not a stack trace (exit 2)', { skip: existsSync('/dev/full') ? false : 'no /dev/full on this system' }, async () => {
    const directory = temporaryDirectory();
    const full = openSync('/dev/full', 'w');
    try {
      for (const args of [['generate', 'funcgen', '--count', '3000', '--no-validate'], ['suites']]) {
        const child = spawn(process.execPath, [binPath, ...args], { cwd: directory, env: keylessEnvironment(), stdio: ['ignore', full, 'pipe'] });
        let stderr = '';
        child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
        const code = await new Promise<number | null>((resolvePromise) => child.on('close', resolvePromise));
        assert.equal(code, 2, `${args[0]}: ${stderr}`);
        assert.match(stderr, /^error: cannot write to standard output: no space left on the device \(ENOSPC\)\n {2}fix: free some space/);
        assert.doesNotMatch(stderr, /\n\s+at /);
      }
    } finally {
      closeSync(full);
    }
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`${signal} during generate --out stops the generation threads, leaves no file behind (not even a partial one) and exits 130`, async () => {
      const directory = temporaryDirectory();
      const child = spawn(process.execPath, [binPath, 'generate', 'funcgen', '--count', '500000', '--no-validate', '--threads', '2', '--out', 'big.jsonl'],
        { cwd: directory, env: keylessEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
      const closed = new Promise<number | null>((resolvePromise) => child.on('close', resolvePromise));
      // Interrupted once tasks are being written.
      const written = (): boolean => readdirSync(directory).some((name) => name.startsWith('.big.jsonl.partial-') && statSync(join(directory, name)).size > 0);
      for (let polls = 0; polls < 600 && !written(); polls += 1) await new Promise((resolvePromise) => setTimeout(resolvePromise, 50));
      assert.ok(written(), `no tasks were written: ${stderr}`);
      child.kill(signal);
      assert.equal(await closed, 130, stderr);
      // Whichever sees the signal first says so: generate (its own advice) or the file writer (the general one).
      assert.match(stderr, /^interrupted: big\.jsonl was not written; (generate again with the same --seed and --set \(the same tasks\)|run the command again)\n$/);
      assert.deepEqual(readdirSync(directory), []);
    });
  }

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`${signal === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM (docker stop, systemd)'} during a built-in run marks the run cancelled, exits 130, says how to resume, and --resume finishes it`, async () => {
      const directory = temporaryDirectory();
      const generated = await runCli(['generate', 'funcgen', '--count', '4000', '--no-validate', '--set', 'core=3', '--set', 'depth=2', '--out', 'many.jsonl'], { cwd: directory });
      assert.equal(generated.code, 0, generated.stderr);
      const child = spawn(process.execPath, [binPath, 'run', 'funcgen', '--tasks', 'many.jsonl', '--model', 'builtin/planner', '--db', 'r.db', '--concurrency', '1', '--json'],
        { cwd: directory, env: keylessEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
      const closed = new Promise<number | null>((resolvePromise) => child.on('close', resolvePromise));
      // Wait until episodes are being committed, then interrupt.
      for (let polls = 0; polls < 600; polls += 1) {
        await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
        if (!existsSync(join(directory, 'r.db')) || statSync(join(directory, 'r.db')).size === 0) continue;
        // The child may still be creating the schema: a failed read is simply polled again.
        const listed = await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory });
        if (listed.code !== 0) continue;
        const runs = JSON.parse(listed.stdout) as { episodes: { scored: number } }[];
        if (runs.length > 0 && runs[0].episodes.scored > 0) break;
      }
      child.kill(signal);
      assert.equal(await closed, 130);
      const [run] = JSON.parse((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory })).stdout) as { id: string; status: string; episodes: { scored: number } }[];
      assert.equal(run.status, 'cancelled');
      assert.ok(run.episodes.scored < 4000);
      // --json: the summary on stdout says the run stopped and how much is left; stderr says how to finish it.
      const summary = JSON.parse(stdout) as { status: string; missingEpisodes: number; episodes: number };
      assert.equal(summary.status, 'cancelled');
      assert.equal(summary.episodes + summary.missingEpisodes, 4000);
      assert.match(stderr, new RegExp(`toolforge run --resume ${run.id}`));
      const resumed = await runCli(['run', '--resume', run.id, '--db', 'r.db', '--json'], { cwd: directory });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(JSON.parse(resumed.stdout).episodes, 4000);
      assert.equal(JSON.parse(resumed.stdout).status, 'finished');
    });
  }
});

describe('a worker of a team run', () => {
  test('Ctrl-C stops it claiming: it exits 130 with episodes still queued, and another worker finishes the run', async () => {
    const directory = temporaryDirectory();
    const queued = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '4000', '--set', 'core=3', '--set', 'depth=2', '--workers-only', '--db', 't.db', '--json'], { cwd: directory });
    assert.equal(queued.code, 0, queued.stderr);
    const runId = (JSON.parse(queued.stdout) as { runId: string }).runId;
    const child = spawn(process.execPath, [binPath, 'worker', '--run', runId, '--db', 't.db', '--concurrency', '1'], { cwd: directory, env: keylessEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    const closed = new Promise<number | null>((resolvePromise) => child.on('close', resolvePromise));
    const scored = (): number => {
      const database = new Database(join(directory, 't.db'), { readonly: true });
      try {
        return (database.prepare("SELECT count(*) AS n FROM episodes WHERE status = 'scored'").get() as { n: number }).n;
      } finally {
        database.close();
      }
    };
    for (let polls = 0; polls < 600 && scored() === 0; polls += 1) await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
    child.kill('SIGINT');
    assert.equal(await closed, 130);
    const stopped = scored();
    assert.ok(stopped > 0 && stopped < 4000, `${stopped} episodes scored before the worker stopped`);
    const finished = await runCli(['worker', '--run', runId, '--db', 't.db', '--lease', '1000'], { cwd: directory });
    assert.equal(finished.code, 0, finished.stderr);
    assert.equal(scored(), 4000);
  });
});

describe('task selection and delete', () => {
  test('--task-id globs and --limit choose tasks; a pattern that matches nothing is an error naming example ids', async () => {
    const directory = temporaryDirectory();
    const base = ['run', 'funcgen', '--model', 'builtin/planner', '--count', '6', '--db', 'r.db', '--json'];
    const picked = await runCli([...base, '--task-id', 'funcgen/0/1', '--task-id', '*/4'], { cwd: directory });
    assert.equal(picked.code, 0, picked.stderr);
    assert.equal(JSON.parse(picked.stdout).tasks, 2);
    const limited = JSON.parse((await runCli([...base, '--limit', '3'], { cwd: directory })).stdout);
    assert.equal(limited.tasks, 3);
    const tasks = JSON.parse((await runCli(['report', limited.runId, '--format', 'json', '--db', 'r.db'], { cwd: directory })).stdout).taskResults
      .map((result: { taskId: string }) => result.taskId);
    assert.deepEqual(tasks, ['funcgen/0/0', 'funcgen/0/1', 'funcgen/0/2']);
    const none = await runCli([...base, '--task-id', 'nestful/*'], { cwd: directory });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--task-id 'nestful\/\*' matches no task/);
    assert.match(none.stderr, /fix: use ids as stored \(e\.g\. funcgen\/0\/0/);
  });

  test('--rerun-failed runs the failed tasks of a stored run with its suite and knobs; a run with no failure has nothing to rerun', async () => {
    const directory = temporaryDirectory();
    const failed = JSON.parse((await runCli(['run', 'funcgen', '--model', 'builtin/random', '--count', '3', '--set', 'core=4', '--db', 'r.db', '--json'], { cwd: directory })).stdout);
    assert.equal(failed.passRate, 0);
    const rerun = await runCli(['run', '--rerun-failed', failed.runId, '--model', 'builtin/planner', '--db', 'r.db', '--json'], { cwd: directory });
    assert.equal(rerun.code, 0, rerun.stderr);
    const summary = JSON.parse(rerun.stdout);
    assert.equal(summary.suite, 'funcgen');
    assert.equal(summary.tasks, 3);
    assert.equal(summary.passRate, 1);
    const header = JSON.parse((await runCli(['export', summary.runId, '--db', 'r.db'], { cwd: directory })).stdout.split('\n')[0]);
    assert.equal(header.run.params.core, 4, 'the stored run\'s knobs');
    const nothing = await runCli(['run', '--rerun-failed', summary.runId, '--model', 'builtin/planner', '--db', 'r.db'], { cwd: directory });
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /passed every task in every trial: there is nothing to rerun/);
    const clash = await runCli(['run', '--rerun-failed', failed.runId, '--model', 'builtin/planner', '--count', '2', '--db', 'r.db'], { cwd: directory });
    assert.equal(clash.code, 2);
    assert.match(clash.stderr, /--count cannot change them/);
  });

  test('delete removes runs with their episodes; an unknown id deletes nothing; latest is refused; a run named twice is deleted once', async () => {
    const directory = temporaryDirectory();
    const first = JSON.parse((await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', 'r.db', '--json'], { cwd: directory })).stdout);
    const second = JSON.parse((await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', 'r.db', '--json'], { cwd: directory })).stdout);
    const refused = await runCli(['delete', first.runId, 'no-such-run', '--db', 'r.db'], { cwd: directory });
    assert.equal(refused.code, 2);
    assert.equal(JSON.parse((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory })).stdout).length, 2);
    const latest = await runCli(['delete', 'latest', '--db', 'r.db'], { cwd: directory });
    assert.equal(latest.code, 2);
    assert.match(latest.stderr, /delete does not take 'latest': name the runs you delete\n {2}fix: list them with 'toolforge runs'/);
    // A run named twice is deleted once, and the command succeeds (it failed on the second name, after deleting).
    const deleted = await runCli(['delete', first.runId, first.runId, '--db', 'r.db'], { cwd: directory });
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout, `deleted run ${first.runId} (2 episodes)\n`);
    const remaining = JSON.parse((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory })).stdout) as { id: string }[];
    assert.deepEqual(remaining.map((run) => run.id), [second.runId]);
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { writeNestfulData } from '../runner/nestful-data.ts';
import { shellArgument } from '../../src/core/shell-argument.ts';
import { binPath, runCli, temporaryDirectory } from './run-cli.ts';

/** The file again, with the UTF-8 byte order mark Windows editors and exporters write first. */
function withByteOrderMark(path: string): string {
  writeFileSync(path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(path)]));
  return path;
}

test('files saved with a byte order mark read as without one: data file, replay file, tasks file, eval set, price file', async () => {
  const directory = temporaryDirectory();
  const { data, replay } = writeNestfulData(directory, 6);
  withByteOrderMark(data);
  withByteOrderMark(replay);
  const run = await runCli(['run', 'nestful', '--set', `data=${data}`, '--model', `replay/${replay}`, '--db', 'r.db', '--json'], { cwd: directory });
  assert.equal(run.code, 0, run.stderr);
  const summary = JSON.parse(run.stdout);
  assert.deepEqual([summary.tasks, summary.passRate], [6, 1]);

  const generated = await runCli(['generate', 'funcgen', '--count', '3', '--out', 'tasks.jsonl'], { cwd: directory });
  assert.equal(generated.code, 0, generated.stderr);
  withByteOrderMark(join(directory, 'tasks.jsonl'));
  const fromFile = await runCli(['run', 'funcgen', '--tasks', 'tasks.jsonl', '--model', 'builtin/oracle', '--db', 'r.db', '--json'], { cwd: directory });
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.deepEqual([JSON.parse(fromFile.stdout).tasks, JSON.parse(fromFile.stdout).passRate], [3, 1]);

  writeFileSync(join(directory, 'set.json'), JSON.stringify({ count: 2, models: [{ ref: 'builtin/oracle' }], suites: [{ id: 'funcgen' }] }));
  withByteOrderMark(join(directory, 'set.json'));
  const evalSet = await runCli(['run', '--config', 'set.json', '--db', 'set.db'], { cwd: directory });
  assert.equal(evalSet.code, 0, evalSet.stderr);

  writeFileSync(join(directory, 'prices.json'), JSON.stringify({ 'replay/*': { input: 1, output: 2 } }));
  withByteOrderMark(join(directory, 'prices.json'));
  const report = await runCli(['report', summary.runId, '--db', 'r.db', '--prices', 'prices.json'], { cwd: directory });
  assert.equal(report.code, 0, report.stderr);
});

test('a compressed file, a folder, a missing file or an empty data file is refused with what it is and the fix, never a stack trace', async () => {
  const directory = temporaryDirectory();
  const { data, replay } = writeNestfulData(directory, 2);
  writeFileSync(join(directory, 'data.jsonl.gz'), gzipSync(readFileSync(data)));
  writeFileSync(join(directory, 'replay.jsonl.gz'), gzipSync(readFileSync(replay)));
  const generated = await runCli(['generate', 'funcgen', '--count', '2', '--out', 'tasks.jsonl'], { cwd: directory });
  assert.equal(generated.code, 0, generated.stderr);
  writeFileSync(join(directory, 'tasks.jsonl.gz'), gzipSync(readFileSync(join(directory, 'tasks.jsonl'))));
  writeFileSync(join(directory, 'set.json.zip'), Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(40)]));
  writeFileSync(join(directory, 'empty.jsonl'), '\n\n');
  mkdirSync(join(directory, 'folder'));
  const gunzip = (file: string): RegExp => new RegExp(`${file} is gzip-compressed, not text\\n  fix: decompress it first \\(gunzip -k \\S*${file.replace('.', '\\.')}\\) and pass the file it holds\\n$`);
  const cases: [string[], RegExp][] = [
    [['run', 'nestful', '--set', `data=${join(directory, 'data.jsonl.gz')}`, '--model', 'builtin/oracle'], gunzip('data.jsonl.gz')],
    [['run', 'nestful', '--set', `data=${data}`, '--model', `replay/${join(directory, 'replay.jsonl.gz')}`], gunzip('replay.jsonl.gz')],
    [['run', 'funcgen', '--tasks', 'tasks.jsonl.gz', '--model', 'builtin/oracle'], gunzip('tasks.jsonl.gz')],
    [['import', 'tasks.jsonl.gz'], gunzip('tasks.jsonl.gz')],
    [['run', '--config', 'set.json.zip'], /set\.json\.zip is a zip archive, not text\n {2}fix: decompress it first \(unzip /],
    [['run', 'nestful', '--set', `data=${data}`, '--model', `replay/${join(directory, 'folder')}`], /cannot read replay file \S*folder: it is a folder, not a file \(an empty one\)\n {2}fix: pass an existing JSONL file/],
    // A data set's folder given for one of its files: the files it holds are named.
    [['run', 'nestful', '--set', `data=${directory}`, '--model', 'builtin/oracle'], /cannot read nestful data file '\S+': it is a folder, not a file \(it holds data\.jsonl\.gz, empty\.jsonl, outputs-2-0\.jsonl, replay\.jsonl\.gz, samples-2-0\.jsonl and 2 more\)\n {2}fix: /],
    [['run', '--tasks', 'folder', '--model', 'builtin/oracle'], /cannot read tasks file \S*folder: it is a folder, not a file \(an empty one\)\n {2}fix: /],
    [['import', 'folder'], /cannot read \S*folder: it is a folder, not a file \(an empty one\)\n {2}fix: /],
    [['run', 'webapi', '--set', `spec=${join(directory, 'folder')}`, '--model', 'builtin/oracle'], /cannot read OpenAPI file '\S*folder': it is a folder, not a file \(an empty one\)\n {2}fix: /],
    [['run', 'toolbench', '--set', `data=${join(directory, 'folder')}`, '--model', 'builtin/oracle'], /cannot read StableToolBench query file '\S*folder': it is a folder, not a file \(an empty one\)\n {2}fix: /],
    [['run', 'webapi', '--set', `data=${join(directory, 'folder')}`, '--model', 'builtin/oracle'], /cannot read WAPIIBench file '\S*folder': it is a folder, not a file \(an empty one\)\n {2}fix: /],
    [['run', 'funcgen', '--tasks', 'missing.jsonl', '--model', 'builtin/oracle'], /cannot read tasks file \S*missing\.jsonl: no such file\n {2}fix: /],
    [['run', 'nestful', '--set', `data=${join(directory, 'empty.jsonl')}`, '--model', 'builtin/oracle'], /the nestful data file \(--set data=\S*empty\.jsonl\) holds no samples, so there are no tasks to run\n {2}fix: pass a nestful data file with at least one sample/],
  ];
  for (const [args, expected] of cases) {
    const result = await runCli([...args, '--db', 'r.db'], { cwd: directory });
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, expected, args.join(' '));
    assert.doesNotMatch(result.stderr, /\n\s+at /, args.join(' '));
  }
});

test('run --tasks without a suite runs the suite the file names; a bad file still says what is wrong with it', async () => {
  const directory = temporaryDirectory();
  const generated = await runCli(['generate', 'funcgen', '--count', '3', '--out', 'tasks.jsonl'], { cwd: directory });
  assert.equal(generated.code, 0, generated.stderr);
  const run = await runCli(['run', '--tasks', 'tasks.jsonl', '--model', 'builtin/oracle', '--db', 'r.db', '--json'], { cwd: directory });
  assert.equal(run.code, 0, run.stderr);
  const summary = JSON.parse(run.stdout);
  assert.deepEqual([summary.suite, summary.tasks, summary.passRate], ['funcgen', 3, 1]);

  // A later task of another suite is refused as the file's mix, not run as the first task's suite.
  const lines = readFileSync(join(directory, 'tasks.jsonl'), 'utf8').trimEnd().split('\n');
  const other = JSON.parse(lines[1] ?? '');
  other.suite.id = 'nestful';
  writeFileSync(join(directory, 'mixed.jsonl'), `${lines[0]}\n${JSON.stringify(other)}\n`);
  writeFileSync(join(directory, 'empty.jsonl'), '\n');
  const cases: [string, RegExp][] = [
    // Running it as nestful would fail on line 1: the fix is to split the file.
    ['mixed.jsonl', /mixed\.jsonl:2: field 'suite\.id' is 'nestful', but earlier tasks belong to suite 'funcgen'\n {2}fix: a tasks file holds the tasks of one suite: split it by suite\.id \(line 1 is funcgen, line 2 is nestful\)/],
    ['empty.jsonl', /empty\.jsonl holds no tasks\n {2}fix: write tasks with `toolforge generate <suite> --out <file>`/],
    ['missing.jsonl', /cannot read tasks file \S*missing\.jsonl: no such file\n {2}fix: check the --tasks path/],
  ];
  for (const [file, message] of cases) {
    const refused = await runCli(['run', '--tasks', file, '--model', 'builtin/oracle', '--db', 'bad.db'], { cwd: directory });
    assert.equal(refused.code, 2, file);
    assert.match(refused.stderr, message, file);
  }
});

test('the commands a run prints to paste work in a shell when the database path has a space and a quote', async () => {
  const directory = temporaryDirectory();
  const folder = join(directory, "it's my folder");
  mkdirSync(folder);
  const database = join(folder, 'results $HOME.db');
  const run = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', database], { cwd: directory });
  assert.equal(run.code, 0, run.stderr);
  const printed = /full report: (toolforge report .+)\n/.exec(run.stdout)?.[1];
  assert.ok(printed, run.stdout);
  // The printed command, as a user pastes it into sh (toolforge being this checkout's bin).
  const pasted = spawnSync('sh', ['-c', printed.replace(/^toolforge /, `${shellArgument(process.execPath)} ${shellArgument(binPath)} `)], { cwd: directory, encoding: 'utf8' });
  assert.equal(pasted.status, 0, `${printed}\n${pasted.stderr}`);
  assert.match(readFileSync(join(directory, 'report.html'), 'utf8'), /funcgen/);
});

test('a file of another kind (tasks, export, outputs, NESTFUL data) where one kind belongs is named for what it is, with the command that takes it', async () => {
  const directory = temporaryDirectory();
  const { data, replay } = writeNestfulData(directory, 2);
  assert.equal((await runCli(['generate', 'funcgen', '--count', '2', '--out', 'tasks.jsonl'], { cwd: directory })).code, 0);
  const run = await runCli(['run', '--tasks', 'tasks.jsonl', '--model', 'builtin/oracle', '--db', 'r.db', '--json'], { cwd: directory });
  assert.equal((await runCli(['export', JSON.parse(run.stdout).runId, '--db', 'r.db', '--out', 'my export.jsonl'], { cwd: directory })).code, 0);
  const tasks = join(directory, 'tasks.jsonl');
  const exported = join(directory, 'my export.jsonl');
  for (const [args, message, fix] of [
    [['run', '--tasks', exported, '--model', 'builtin/oracle'], /my export\.jsonl:1: this is a run export \(as `toolforge export` writes it\), not a tasks file/, /fix: add the run to a results database with `toolforge import '[^']+my export\.jsonl'`/],
    [['run', '--tasks', replay, '--model', 'builtin/oracle'], /:1: this is a file of model outputs to replay, not a tasks file/, /fix: score them with `toolforge run <suite> --model replay\//],
    [['run', '--tasks', data, '--model', 'builtin/oracle'], /:1: this is a NESTFUL data file, not a tasks file/, /fix: run its samples with `toolforge run nestful --set data=\S+ --model <ref>`/],
    [['import', tasks, '--db', 'other.db'], /tasks\.jsonl:1: this is a tasks file \(as `toolforge generate` writes it\), not a run export/, /fix: run its tasks with `toolforge run --tasks \S+tasks\.jsonl --model <ref>`/],
    [['import', replay, '--db', 'other.db'], /:1: this is a file of model outputs to replay, not a run export/, /fix: score them/],
    [['run', 'funcgen', '--count', '1', '--model', `replay/${tasks}`], /replay file \S+tasks\.jsonl line 1: this is a tasks file/, /fix: run its tasks with `toolforge run --tasks/],
    [['run', 'funcgen', '--count', '1', '--model', `replay/${exported}`], /line 1: this is a run export/, /fix: add the run to a results database with `toolforge import/],
  ] as const) {
    const result = await runCli([...args], { cwd: directory });
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(' '));
    assert.match(result.stderr, fix, args.join(' '));
  }
  // JSON documents where JSON Lines belong: a list of tasks (pretty or on one line), a data set's file, one object.
  const taskObjects = readFileSync(tasks, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  writeFileSync(join(directory, 'pretty.json'), JSON.stringify(taskObjects, null, 2));
  writeFileSync(join(directory, 'inline.json'), JSON.stringify(taskObjects));
  writeFileSync(join(directory, 'per-api.json'), JSON.stringify({ api: 'asana', samples: [{ task: 'List the projects', config: { url: 'https://x/y', method: 'get' } }] }, null, 2));
  writeFileSync(join(directory, 'object.json'), JSON.stringify({ name: 'x' }, null, 2));
  for (const [args, message, fix] of [
    [['run', '--tasks', 'pretty.json', '--model', 'builtin/oracle'], /pretty\.json:1: this is one JSON list, not JSON Lines \(a tasks file holds one object per line\)/, /jq -c "\.\[\]"/],
    [['run', '--tasks', 'inline.json', '--model', 'builtin/oracle'], /inline\.json:1: this is one JSON list, not JSON Lines/, /jq -c "\.\[\]"/],
    [['import', 'pretty.json', '--db', 'other.db'], /pretty\.json:1: this is one JSON list, not JSON Lines \(a run export holds/, /jq -c/],
    [['run', 'funcgen', '--count', '1', '--model', `replay/${join(directory, 'pretty.json')}`], /line 1: this is one JSON list, not JSON Lines \(a file of model outputs to replay holds/, /jq -c/],
    [['run', '--tasks', 'per-api.json', '--model', 'builtin/oracle'], /per-api\.json:1: this is a WAPIIBench task file, not a tasks file/, /fix: run its tasks with `toolforge run webapi --set data=\S+per-api\.json --model <ref>`/],
    [['run', '--tasks', 'object.json', '--model', 'builtin/oracle'], /object\.json:1: this is one JSON document, not JSON Lines/, /jq -c \. file\.json/],
  ] as const) {
    const result = await runCli([...args], { cwd: directory });
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(' '));
    assert.match(result.stderr, fix, args.join(' '));
  }
  // A tasks file whose second line is damaged still names the field: only a first line that is another kind is named so.
  const lines = readFileSync(tasks, 'utf8').trim().split('\n');
  writeFileSync(join(directory, 'damaged.jsonl'), `${lines[0]}\n${JSON.stringify({ taskId: 'x', output: 'y' })}\n`);
  const damaged = await runCli(['run', '--tasks', 'damaged.jsonl', '--model', 'builtin/oracle'], { cwd: directory });
  assert.equal(damaged.code, 2);
  assert.match(damaged.stderr, /damaged\.jsonl:2: field 'schemaVersion'/);
});

test('JSON Lines where a data set\'s one JSON document belongs (webapi, toolbench --set data=) is named for what it is, never a parser position', async () => {
  const directory = temporaryDirectory();
  const { data, replay } = writeNestfulData(directory, 2);
  assert.equal((await runCli(['generate', 'funcgen', '--count', '2', '--out', 'tasks.jsonl'], { cwd: directory })).code, 0);
  writeFileSync(join(directory, 'plain.jsonl'), '{"a": 1}\n{"b": 2}\n');
  writeFileSync(join(directory, 'queries.json'), JSON.stringify([{ query: 'q', query_id: 1, api_list: [] }], null, 2));
  for (const suite of ['webapi', 'toolbench'] as const) {
    const what = suite === 'webapi' ? 'a WAPIIBench task file' : 'a StableToolBench query file';
    for (const [file, message, fix] of [
      ['tasks.jsonl', /this is a tasks file \(as `toolforge generate` writes it\)/, /fix: run its tasks with `toolforge run --tasks \S+tasks\.jsonl --model <ref>`/],
      [replay, /this is a file of model outputs to replay/, /fix: score them with `toolforge run <suite> --model replay\//],
      [data, /this is a NESTFUL data file/, /fix: run its samples with `toolforge run nestful --set data=/],
      ['plain.jsonl', /this is JSON Lines \(one value per line\), not one JSON document/, /jq -s \. file\.jsonl > file\.json/],
    ] as const) {
      const result = await runCli(['run', suite, '--set', `data=${file}`, '--model', 'builtin/oracle', '--db', 'r.db'], { cwd: directory });
      assert.equal(result.code, 2, `${suite} ${file}: ${result.stderr}`);
      assert.match(result.stderr, message, `${suite} ${file}`);
      if (!/JSON Lines/.test(String(message))) assert.match(result.stderr, new RegExp(`not ${what}`), `${suite} ${file}`);
      assert.match(result.stderr, fix, `${suite} ${file}`);
      assert.doesNotMatch(result.stderr, /at position \d+/, `${suite} ${file}`);
    }
  }
  // A StableToolBench file where NESTFUL data belongs is named too.
  const queries = await runCli(['run', 'nestful', '--set', 'data=queries.json', '--model', 'builtin/oracle', '--db', 'r.db'], { cwd: directory });
  assert.equal(queries.code, 2, queries.stderr);
  assert.match(queries.stderr, /this is a StableToolBench query file, not a NESTFUL data file/);
  assert.match(queries.stderr, /fix: run its queries with `toolforge run toolbench --set data=\S+queries\.json --model <ref>`/);
});

import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { streamGeneratedTasks } from '../../src/runner/generate-tasks.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { keylessEnvironment, runCli, spawnCli, temporaryDirectory } from './run-cli.ts';

const summaryKeys = ['runId', 'suite', 'model', 'mode', 'tasks', 'trials', 'episodes', 'infrastructureErrors', 'passRate', 'passRateCI95', 'metrics', 'failures', 'retries', 'status', 'missingEpisodes'];

function parseSummary(stdout: string): Record<string, unknown> & { passRate: number; runId: string; failures: Record<string, number> } {
  assert.equal(stdout.trim().split('\n').length, 1, 'run --json prints exactly one line on stdout');
  return JSON.parse(stdout);
}

describe('toolforge suites', () => {
  test('lists funcgen with its modes, default count, knobs with defaults and built-in models', async () => {
    const result = await runCli(['suites'], { cwd: temporaryDirectory() });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^funcgen \(version /m);
    assert.match(result.stdout, /modes: calls, react \(default calls\)/);
    assert.match(result.stdout, /core=5 \(integer in \[2, 200\]\)/);
    assert.match(result.stdout, /built-in models: builtin\/oracle, builtin\/planner, builtin\/random/);
  });

  test('lists every transform with its knobs after the suites, each as --transform accepts it', async () => {
    const result = await runCli(['suites'], { cwd: temporaryDirectory() });
    const listing = result.stdout.slice(result.stdout.indexOf('\ntransforms ('));
    assert.match(listing, /^ {2}identity: changes nothing/m);
    assert.match(listing, /^ {2}drift: schema drift \(DynamicToolBench\)/m);
    assert.match(listing, /^ {4}op=all \(endpoint\|rename\|type\|default-flip\|nest\|required-swap\|all\)/m);
    assert.match(listing, /^ {4}probability=0\.99 \(number in \[0, 1\]\)/m);
    assert.match(listing, /^ {2}perturb: .*\n {4}kind=distractor \(distractor\|case-mix\|punctuation\|paraphrase\)/m);
    assert.match(listing, /^ {2}rename-tools: .*\n {4}style=opaque \(opaque\|suffix\)/m);
  });

  test('--json gives the same facts as data', async () => {
    const result = await runCli(['suites', '--json'], { cwd: temporaryDirectory() });
    const funcgen = (JSON.parse(result.stdout) as { id: string; modes: string[]; knobs: { name: string; default: unknown }[]; defaultCount: number }[])
      .find((suite) => suite.id === 'funcgen');
    assert.ok(funcgen);
    assert.deepEqual(funcgen.modes, ['calls', 'react']);
    assert.equal(funcgen.knobs.find((knob) => knob.name === 'depth')?.default, 3);
    assert.equal(funcgen.defaultCount, 50);
  });
});

describe('toolforge generate', () => {
  test('same arguments give identical bytes; another seed gives other tasks; --out writes the same bytes', async () => {
    const directory = temporaryDirectory();
    const args = ['generate', 'funcgen', '--seed', '7', '--count', '4', '--set', 'core=4', '--set', 'depth=2'];
    const first = await runCli(args, { cwd: directory });
    const second = await runCli(args, { cwd: directory });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, second.stdout);
    const lines = first.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 4);
    const task = JSON.parse(lines[0]) as { suite: { id: string }; params: Record<string, unknown> };
    assert.equal(task.suite.id, 'funcgen');
    assert.equal((JSON.parse(lines[3]) as { id: string }).id, 'funcgen/7/3');
    assert.equal(task.params.core, 4);
    const other = await runCli(['generate', 'funcgen', '--seed', '8', '--count', '4', '--set', 'core=4', '--set', 'depth=2'], { cwd: directory });
    assert.notEqual(other.stdout, first.stdout);
    const written = await runCli([...args, '--out', 'tasks.jsonl'], { cwd: directory });
    assert.equal(written.code, 0);
    assert.equal(written.stdout, '');
    assert.equal(readFileSync(join(directory, 'tasks.jsonl'), 'utf8'), first.stdout);
  });

  test('a data file with no sample: generate refuses it as run does, leaving no --out file; a --count past it does not suggest --count 0', async () => {
    const directory = temporaryDirectory();
    writeFileSync(join(directory, 'empty.json'), '[]\n');
    const generated = await runCli(['generate', 'nestful', '--set', `data=${join(directory, 'empty.json')}`, '--out', 'out.jsonl'], { cwd: directory });
    assert.equal(generated.code, 2, generated.stderr);
    assert.match(generated.stderr, /error: the nestful data file \(--set data=.*empty\.json\) holds no samples/);
    assert.equal(existsSync(join(directory, 'out.jsonl')), false);
    const counted = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--set', `data=${join(directory, 'empty.json')}`, '--count', '2', '--db', 'r.db'], { cwd: directory });
    assert.equal(counted.code, 2, counted.stderr);
    assert.match(counted.stderr, /has only 0 tasks for these settings, fewer than --count 2\n {2}fix: these settings give no task: pass a data file that holds samples/);
    assert.doesNotMatch(counted.stderr, /--count 0/);
  });

  test('2,100 tasks, made on a thread per core: the same bytes on stdout and in --out as one thread makes', async () => {
    const directory = temporaryDirectory();
    const settings = ['--set', 'core=3', '--set', 'depth=2', '--set', 'connected=1', '--set', 'disconnected=1'];
    const expected: string[] = [];
    const suite = getSuite('funcgen');
    for await (const task of streamGeneratedTasks(suite, { seed: 4, count: 2100, params: resolveKnobs(suite.id, suite.knobs, { core: '3', depth: '2', connected: '1', disconnected: '1' }) })) {
      expected.push(JSON.stringify(task));
    }
    const written = await runCli(['generate', 'funcgen', '--seed', '4', '--count', '2100', ...settings, '--out', 'many.jsonl'], { cwd: directory });
    assert.equal(written.code, 0, written.stderr);
    assert.match(written.stderr, /wrote 2100 funcgen tasks to /);
    assert.equal(readFileSync(join(directory, 'many.jsonl'), 'utf8'), `${expected.join('\n')}\n`);
    const printed = await runCli(['generate', 'funcgen', '--seed', '4', '--count', '2100', ...settings], { cwd: directory });
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout, `${expected.join('\n')}\n`);
    const cores = availableParallelism();
    const tooMany = await runCli(['generate', 'funcgen', '--count', '5', '--threads', String(cores + 1)], { cwd: directory });
    assert.equal(tooMany.code, 2);
    assert.match(tooMany.stderr, new RegExp(`error: --threads ${cores + 1} is more than the ${cores} cores this machine has\n {2}fix: pass --threads ${cores} or less`));
  });

  test('tasks are written as they are made; a generate that fails part way leaves no --out file, and an unwritable --out is named', async () => {
    const directory = temporaryDirectory();
    // Three samples, four asked for: the error comes after the first three tasks were made and written.
    const samples = [1, 2, 3].map((index) => JSON.stringify({
      sample_id: `s${index}`, input: `add ${index}`, output: [{ name: 'add', label: '$var_1', arguments: { arg_0: index, arg_1: 1 } }], gold_answer: index + 1,
      tools: [{ name: 'add', description: 'add', parameters: { arg_0: { type: 'int' }, arg_1: { type: 'int' } }, output_parameters: { result: { type: 'int' } } }],
    }));
    writeFileSync(join(directory, 'samples.jsonl'), `${samples.join('\n')}\n`);
    const full = await runCli(['generate', 'nestful', '--set', `data=${join(directory, 'samples.jsonl')}`, '--count', '3', '--out', 'three.jsonl'], { cwd: directory });
    assert.equal(full.code, 0, full.stderr);
    assert.match(full.stderr, /wrote 3 nestful tasks to .*three\.jsonl/);
    const failed = await runCli(['generate', 'nestful', '--set', `data=${join(directory, 'samples.jsonl')}`, '--count', '4', '--out', 'four.jsonl'], { cwd: directory });
    assert.equal(failed.code, 2, failed.stderr);
    assert.match(failed.stderr, /has only 3 tasks/);
    assert.deepEqual(readdirSync(directory).filter((name) => name.includes('four')), []);
    const unwritable = await runCli(['generate', 'funcgen', '--count', '1', '--out', 'no-such-folder/tasks.jsonl'], { cwd: directory });
    assert.equal(unwritable.code, 2);
    assert.match(unwritable.stderr, /cannot write --out .*no-such-folder.tasks\.jsonl/);
    assert.match(unwritable.stderr, /fix: pass --out with a path in an existing, writable folder/);
    assert.match(unwritable.stderr, /its folder .*no-such-folder does not exist/);
    const folder = await runCli(['generate', 'funcgen', '--count', '1', '--out', '.'], { cwd: directory });
    assert.equal(folder.code, 2, folder.stderr);
    assert.match(folder.stderr, /cannot write --out .*: it is a folder\n {2}fix: pass --out with a path/);
    const exported = await runCli(['export', 'latest', '--out', '.', '--db', 'none.db'], { cwd: directory });
    assert.equal(exported.code, 2, exported.stderr);
    assert.deepEqual(readdirSync(directory).filter((name) => name.includes('partial')), []);
  });
});

describe('toolforge run', () => {
  test('builtin/oracle passes every task; --json prints exactly the documented keys', async () => {
    const directory = temporaryDirectory();
    const result = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '5', '--json'], { cwd: directory });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '', 'nothing noisy off a terminal');
    const summary = parseSummary(result.stdout);
    assert.deepEqual(Object.keys(summary), summaryKeys);
    assert.equal(summary.suite, 'funcgen');
    assert.equal(summary.model, 'builtin/oracle');
    assert.equal(summary.mode, 'calls');
    assert.equal(summary.tasks, 5);
    assert.equal(summary.trials, 1);
    assert.equal(summary.episodes, 5);
    assert.equal(summary.infrastructureErrors, 0);
    assert.equal(summary.passRate, 1);
    const interval = summary.passRateCI95 as number[];
    assert.equal(interval[1], 1);
    assert.ok(interval[0] > 0.5 && interval[0] < 0.6, `Wilson lower bound of 5/5 is 0.566, got ${interval[0]}`);
    assert.ok(Object.values(summary.failures).every((count) => count === 0));
    assert.equal((summary.metrics as Record<string, number>).successRate, 1);
  });

  test('builtin/random scores near 0, and its failures are classified', async () => {
    const result = await runCli(['run', 'funcgen', '--model', 'builtin/random', '--count', '10', '--json'], { cwd: temporaryDirectory() });
    assert.equal(result.code, 0, result.stderr);
    const summary = parseSummary(result.stdout);
    assert.ok(summary.passRate <= 0.2, `random passed ${summary.passRate}`);
    const failed = Object.values(summary.failures).reduce((sum, count) => sum + count, 0);
    assert.equal(failed, Math.round(10 * (1 - summary.passRate)));
  });

  test('the human report shows pass rate, CI, suite metrics and where results went', async () => {
    const directory = temporaryDirectory();
    const result = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '3', '--trials', '2', '--mode', 'react'], { cwd: directory });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /suite funcgen, model builtin\/planner, mode react/);
    assert.match(result.stdout, /3 tasks x 2 trials = 6 episodes/);
    assert.match(result.stdout, /pass rate 100\.0% {2}95% CI \[\d+\.\d%, 100\.0%\]/);
    assert.match(result.stdout, /passAt2 +1/);
    assert.match(result.stdout, /failures: none/);
    assert.match(result.stdout, new RegExp(`stored in ${join(directory, '.toolforge', 'results.db').replaceAll('/', '\\/')}`));
  });

  test('replay/<file> re-scores recorded outputs: replaying the oracle\'s turns passes every task', async () => {
    const directory = temporaryDirectory();
    assert.equal((await runCli(['generate', 'funcgen', '--count', '3', '--out', 'tasks.jsonl'], { cwd: directory })).code, 0);
    const oracle = parseSummary((await runCli(['run', 'funcgen', '--tasks', 'tasks.jsonl', '--model', 'builtin/oracle', '--json'], { cwd: directory })).stdout);
    const exported = (await runCli(['export', oracle.runId], { cwd: directory })).stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as {
      type: string; episode?: { taskId: string; messages: { role: string; content?: string; toolCalls?: { id: string; name: string; argumentsText: string }[] }[] };
    });
    const replay = exported.flatMap((line) => (line.type === 'episode' && line.episode ? [{
      taskId: line.episode.taskId,
      turns: line.episode.messages.filter((message) => message.role === 'assistant').map((message) => ({
        content: message.content ?? '',
        toolCalls: (message.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name, argumentsText: call.argumentsText })),
      })),
    }] : []));
    assert.equal(replay.length, 3);
    const replayPath = join(directory, 'oracle-replay.jsonl');
    writeFileSync(replayPath, replay.map((entry) => JSON.stringify(entry)).join('\n'));
    const result = await runCli(['run', 'funcgen', '--tasks', 'tasks.jsonl', '--model', `replay/${replayPath}`, '--json'], { cwd: directory });
    assert.equal(result.code, 0, result.stderr);
    const summary = parseSummary(result.stdout);
    assert.equal(summary.model, `replay/${replayPath}`);
    assert.equal(summary.passRate, 1);
  });

  test('--tasks runs a generated file, and --resume of a finished run reruns nothing', async () => {
    const directory = temporaryDirectory();
    assert.equal((await runCli(['generate', 'funcgen', '--count', '3', '--seed', '4', '--out', 'tasks.jsonl'], { cwd: directory })).code, 0);
    const run = await runCli(['run', 'funcgen', '--tasks', 'tasks.jsonl', '--model', 'builtin/oracle', '--db', 'my.db', '--json'], { cwd: directory });
    assert.equal(run.code, 0, run.stderr);
    const summary = parseSummary(run.stdout);
    assert.equal(summary.tasks, 3);
    const resumed = await runCli(['run', '--resume', summary.runId, '--db', 'my.db', '--json'], { cwd: directory });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(parseSummary(resumed.stdout), summary);
    const withSuite = await runCli(['run', 'funcgen', '--resume', summary.runId, '--db', 'my.db', '--json'], { cwd: directory });
    assert.deepEqual(parseSummary(withSuite.stdout), summary);
    // Another suite's name, with the run named as typed or as 'latest': the error names the run's own suite.
    for (const reference of [summary.runId, 'latest']) {
      const wrongSuite = await runCli(['run', 'webapi', '--resume', reference, '--db', 'my.db'], { cwd: directory });
      assert.equal(wrongSuite.code, 2, wrongSuite.stderr);
      assert.match(wrongSuite.stderr, new RegExp(`run '${summary.runId}' is a funcgen run, not webapi`));
      assert.match(wrongSuite.stderr, new RegExp(`fix: use 'toolforge run --resume ${summary.runId} --db my\\.db'`));
    }
    const wrongRerun = await runCli(['run', 'webapi', '--rerun-failed', summary.runId, '--model', 'builtin/oracle', '--db', 'my.db'], { cwd: directory });
    assert.equal(wrongRerun.code, 2, wrongRerun.stderr);
    assert.match(wrongRerun.stderr, new RegExp(`fix: use 'toolforge run --rerun-failed ${summary.runId} --model <ref> --db my\\.db'`));
  });
});

describe('toolforge report, runs, export, import', () => {
  const directory = temporaryDirectory();
  let runId = '';
  before(async () => {
    const oracle = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '3', '--json'], { cwd: directory });
    const random = await runCli(['run', 'funcgen', '--model', 'builtin/random', '--count', '3', '--json'], { cwd: directory });
    assert.equal(oracle.code + random.code, 0);
    runId = parseSummary(random.stdout).runId;
  });

  test('runs lists both runs, newest first', async () => {
    const result = await runCli(['runs', '--json'], { cwd: directory });
    const runs = JSON.parse(result.stdout) as { id: string; model: string; status: string }[];
    assert.deepEqual(runs.map((run) => run.model), ['builtin/random', 'builtin/oracle']);
    assert.equal(runs[0].id, runId);
    assert.ok(runs.every((run) => run.status === 'finished'));
  });

  test('json: one run prints its summary plus tables and task results; no run prints every run', async () => {
    const one = JSON.parse((await runCli(['report', runId, '--format', 'json'], { cwd: directory })).stdout);
    assert.equal(one.runId, runId);
    assert.equal(one.taskResults.length, 3);
    assert.ok(one.tables.length > 0);
    const all = JSON.parse((await runCli(['report', '--format', 'json'], { cwd: directory })).stdout) as { runs: { model: string; passRate: number }[]; leaderboard: unknown };
    assert.deepEqual(all.runs.map((run) => [run.model, run.passRate]), [['builtin/oracle', 1], ['builtin/random', one.passRate]]);
    assert.ok(all.leaderboard);
    const latest = JSON.parse((await runCli(['report', 'latest', '--format', 'json'], { cwd: directory })).stdout);
    assert.equal(latest.runId, runId);
  });

  test('csv has a header and one row per episode', async () => {
    const lines = (await runCli(['report', '--format', 'csv'], { cwd: directory })).stdout.trimEnd().split('\n');
    assert.match(lines[0], /^run_id,suite,model,mode,task_id,trial,status,passed,score,failure/);
    assert.equal(lines.length, 1 + 6);
  });

  test('table is the default format; the random run is paired with the oracle run on the same tasks', async () => {
    const result = await runCli(['report'], { cwd: directory });
    assert.equal(result.code, 0);
    assert.match(result.stdout, new RegExp(`funcgen +\\S+ +${runId} +3 +100\\.0% +0\\.0% +-100\\.0% +\\[-100\\.0%, -100\\.0%\\] +0 / 3 / 0 +0\\.25`));
    assert.match(result.stdout, /builtin\/oracle +calls +3 +100\.0%/);
    assert.match(result.stdout, /run .*: suite funcgen, model builtin\/random/);
  });

  test('html is a self-contained page with inline SVG charts, identical when rendered twice', async () => {
    const first = await runCli(['report', '--format', 'html', '--out', 'report.html'], { cwd: directory });
    assert.equal(first.code, 0, first.stderr);
    const html = readFileSync(join(directory, 'report.html'), 'utf8');
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /<svg/);
    assert.match(html, /Per-task results \(3 tasks\)/);
    assert.match(html, /<h3>Paired comparisons<\/h3>/);
    assert.doesNotMatch(html, /<script|https?:\/\/(?!www\.w3\.org)/);
    assert.equal((await runCli(['report', '--format', 'html'], { cwd: directory })).stdout, html);
  });

  test('export then import into another database round-trips byte for byte', async () => {
    const exported = await runCli(['export', runId, '--out', 'run.jsonl'], { cwd: directory });
    assert.equal(exported.code, 0, exported.stderr);
    const imported = await runCli(['import', 'run.jsonl', '--db', 'copy.db'], { cwd: directory });
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, new RegExp(`imported run ${runId}`));
    const again = await runCli(['export', runId, '--db', 'copy.db'], { cwd: directory });
    assert.equal(again.stdout, readFileSync(join(directory, 'run.jsonl'), 'utf8'));
    const original = await runCli(['report', runId, '--format', 'json'], { cwd: directory });
    const copy = await runCli(['report', runId, '--format', 'json', '--db', 'copy.db'], { cwd: directory });
    assert.equal(copy.stdout, original.stdout);
  });
});

describe('bad input exits 2 with a message naming the fix, and loses nothing recorded', () => {
  const directory = temporaryDirectory();
  let exportBefore = '';
  let runId = '';
  before(async () => {
    const run = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '2', '--json'], { cwd: directory });
    runId = parseSummary(run.stdout).runId;
    exportBefore = (await runCli(['export', runId], { cwd: directory })).stdout;
    writeFileSync(join(directory, 'garbage.jsonl'), '{"type":"run"}\nnot json\n');
  });

  const cases: { name: string; args: string[]; message: RegExp; fix: RegExp }[] = [
    { name: 'unknown suite', args: ['run', 'nosuch', '--model', 'builtin/oracle'], message: /unknown suite 'nosuch'/, fix: /fix: use one of: .*funcgen/ },
    { name: 'unknown knob', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--set', 'nope=1'], message: /has no knob 'nope'/, fix: /fix: use one of: core, depth/ },
    { name: 'bad knob value', args: ['generate', 'funcgen', '--set', 'core=abc'], message: /knob 'core' cannot be 'abc'/, fix: /fix: --set core=<integer/ },
    { name: 'knob out of range', args: ['generate', 'funcgen', '--set', 'core=1'], message: /knob 'core' cannot be '1'/, fix: /integer in \[2, 200\]/ },
    { name: 'non-numeric --count', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--count', 'abc'], message: /--count <n>' argument 'abc' is invalid/, fix: /expected a whole number from 1 to 9007199254740991, e\.g\. 10\n {2}fix: see 'toolforge run --help' for the flags/ },
    { name: 'non-numeric --trials', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--trials', '0'], message: /--trials <n>' argument '0' is invalid/, fix: /expected a whole number from 1/ },
    { name: '--seed with --tasks and no --transform', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--tasks', 'tasks.jsonl', '--seed', '5'], message: /--tasks reads fixed tasks \(each carries the seed it was made with\), so --seed has nothing to change/, fix: /fix: drop --seed to run the file as it is/ },
    { name: 'a negative --temperature', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--temperature', '-0.5'], message: /--temperature <t>' argument '-0\.5' is invalid/, fix: /expected a number >= 0, e\.g\. 0 or 0\.7/ },
    { name: 'a seed past the safe integers', args: ['generate', 'funcgen', '--seed', '99999999999999999999'], message: /--seed <n>' argument '99999999999999999999' is invalid/, fix: /expected a whole number from 0 to 9007199254740991/ },
    { name: 'a count past the safe integers', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--count', '99999999999999999999'], message: /--count <n>' argument '99999999999999999999' is invalid/, fix: /from 1 to 9007199254740991/ },
    { name: 'malformed --set', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--set', 'foo'], message: /--set <name=value>' argument 'foo' is invalid/, fix: /expected name=value, e\.g\. --set foo=<value>/ },
    { name: 'unreadable --tasks file', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--tasks', 'missing.jsonl'], message: /cannot read tasks file .*missing\.jsonl/, fix: /fix: check the --tasks path/ },
    { name: 'invalid --tasks file', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--tasks', 'garbage.jsonl'], message: /garbage\.jsonl:1: /, fix: /fix: each line must be one task object/ },
    { name: 'unknown model provider', args: ['run', 'funcgen', '--model', 'nope/x'], message: /unknown model provider 'nope'/, fix: /fix: use one of openai\/, .*builtin\// },
    { name: 'unknown built-in model', args: ['run', 'funcgen', '--model', 'builtin/nope'], message: /no built-in model 'nope'/, fix: /builtin\/oracle, builtin\/planner, builtin\/random/ },
    { name: 'missing API key', args: ['run', 'funcgen', '--model', 'openai/gpt-4.1'], message: /needs an API key in OPENAI_API_KEY, which is not set/, fix: /fix: export OPENAI_API_KEY=/ },
    { name: 'openai-compatible without --base-url', args: ['run', 'funcgen', '--model', 'openai-compatible/qwen'], message: /base/i, fix: /--base-url/ },
    { name: 'unsupported mode', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--mode', 'sequence'], message: /does not support mode 'sequence'/, fix: /fix: use --mode calls\|react/ },
    { name: 'no model', args: ['run', 'funcgen'], message: /no model given/, fix: /fix: pass --model <ref>/ },
    { name: 'unknown run in report', args: ['report', 'no-such-run'], message: /no run 'no-such-run'/, fix: /fix: / },
    { name: 'resume with a new model', args: ['run', '--resume', 'x', '--model', 'builtin/random'], message: /--model cannot change them/, fix: /fix: drop --model/ },
    { name: 'report without a database', args: ['report', '--db', 'absent.db'], message: /no results database at .*absent\.db/, fix: /fix: run 'toolforge run/ },
    // Commands that add to a stored run refuse a path with no database instead of creating an empty one there.
    { name: 'worker without a database', args: ['worker', '--db', 'absent-worker.db', '--run', 'x'], message: /no results database at .*absent-worker\.db/, fix: /fix: run 'toolforge run/ },
    { name: 'resume without a database', args: ['run', '--resume', 'x', '--db', 'absent-resume.db'], message: /no results database at .*absent-resume\.db/, fix: /fix: run 'toolforge run/ },
    { name: 'rescore without a database', args: ['rescore', 'x', '--db', 'absent-rescore.db'], message: /no results database at .*absent-rescore\.db/, fix: /fix: run 'toolforge run/ },
    // A URL of a database ToolForge does not speak is refused, not taken as a path (a folder 'mysql:' and a file in it).
    { name: 'a mysql:// --db for run', args: ['run', 'funcgen', '--model', 'builtin/oracle', '--count', '1', '--db', 'mysql://host/results'], message: /--db mysql:\/\/host\/results: results are stored in a SQLite file or in PostgreSQL, not at mysql:\/\/ URLs/, fix: /fix: pass a file path \(e\.g\. --db results\.db\) or a PostgreSQL URL/ },
    { name: 'a sqlite:// --db for runs', args: ['runs', '--db', 'sqlite://results/run.db'], message: /not at sqlite:\/\/ URLs/, fix: /fix: pass a file path \(e\.g\. --db results\/run\.db\)/ },
    { name: 'import of a non-export', args: ['import', 'garbage.jsonl'], message: /garbage\.jsonl:1: /, fix: /fix: / },
    { name: 'unwritable --out', args: ['report', '--format', 'csv', '--out', 'no-such-folder/report.csv'], message: /cannot write --out .*no-such-folder\/report\.csv/, fix: /fix: pass --out with a path in an existing, writable folder/ },
    { name: 'unknown command', args: ['frobnicate'], message: /unknown command 'frobnicate'/, fix: /fix: see 'toolforge --help' for the commands/ },
    { name: 'a nested command\'s missing argument', args: ['data', 'fetch'], message: /missing required argument 'names'/, fix: /fix: see 'toolforge data fetch --help'/ },
    { name: 'view on a port past 65535', args: ['view', '--port', '65536'], message: /argument '65536' is invalid\. expected a port from 1 to 65535/, fix: /fix: see 'toolforge view --help'/ },
    { name: 'a bad --format', args: ['report', '--format', 'xml'], message: /argument 'xml' is invalid/, fix: /fix: see 'toolforge report --help'/ },
  ];

  for (const { name, args, message, fix } of cases) {
    test(name, async () => {
      const result = await runCli(args, { cwd: directory, env: {} });
      assert.equal(result.code, 2, `${name}: ${result.stderr}`);
      assert.match(result.stderr, /^error: /);
      assert.match(result.stderr, message);
      assert.match(result.stderr, fix);
      assert.equal(result.stdout, '');
      const after = await runCli(['export', runId], { cwd: directory });
      assert.equal(after.stdout, exportBefore, 'the recorded run is unchanged');
    });
  }

  test('no bad input created a results database where none was', () => {
    for (const name of ['absent.db', 'absent-worker.db', 'absent-resume.db', 'absent-rescore.db', 'mysql:', 'sqlite:']) assert.equal(existsSync(join(directory, name)), false, name);
  });

  test('a command that records runs and stops before its run starts leaves no empty database it created; one that was there stays', async () => {
    const fresh = temporaryDirectory();
    const stopped: string[][] = [
      ['run', 'funcgen', '--model', 'builtin/oracle', '--set', 'core=abc'],
      ['run', 'funcgen', '--model', 'builtin/oracle', '--tasks', 'missing.jsonl'],
      ['run', 'nestful', '--model', 'builtin/oracle', '--set', 'data=missing.json'],
      ['sweep', 'funcgen', '--model', 'builtin/oracle', '--grid', 'core=abc'],
      ['serve', 'funcgen', '--stdio', '--set', 'core=abc'],
    ];
    for (const args of stopped) {
      const result = await runCli([...args, '--db', 'new.db'], { cwd: fresh, env: {} });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.deepEqual(readdirSync(fresh), [], args.join(' '));
    }
    // The database of the run above (with its run) is kept by a command that then stops.
    const kept = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--set', 'core=abc', '--db', join(directory, 'results.db')], { cwd: fresh, env: {} });
    assert.equal(kept.code, 2);
    assert.equal((await runCli(['export', runId], { cwd: directory })).stdout, exportBefore);
  });

  test('no bad input created another run', async () => {
    const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: directory })).stdout) as unknown[];
    assert.equal(runs.length, 1);
  });
});

describe('help', () => {
  test('--help and no arguments print usage and exit 0', async () => {
    const help = await runCli(['--help'], { cwd: temporaryDirectory() });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: toolforge/);
    for (const command of ['suites', 'generate', 'run', 'report', 'runs', 'export', 'import', 'view']) assert.match(help.stdout, new RegExp(`\\n  ${command}\\b`));
    const bare = await runCli([], { cwd: temporaryDirectory() });
    assert.equal(bare.code, 0);
    assert.equal(bare.stdout, help.stdout);
  });
});

describe('bin/toolforge.js', () => {
  test('the main command works on a fresh directory with no API key', async () => {
    const directory = temporaryDirectory();
    const result = await spawnCli(['run', 'funcgen', '--model', 'builtin/planner'], { cwd: directory, env: keylessEnvironment() });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /50 tasks x 1 trials = 50 episodes/);
    assert.match(result.stdout, /pass rate 100\.0%/);
    const bad = await spawnCli(['run', 'funcgen', '--model', 'openai/gpt-4.1', '--count', '1'], { cwd: directory, env: keylessEnvironment() });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^error: openai\/gpt-4\.1 needs an API key/);
  });
});

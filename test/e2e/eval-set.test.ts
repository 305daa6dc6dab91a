/**
 * `run --config <file>`: an eval set of two models x two knob values x two suites runs as one group, is killed,
 * continues when the same file is run again, and is reported side by side.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startConversationServer } from '../fakes/conversation-server.ts';
import { binPath, keylessEnvironment, runCli, temporaryDirectory } from './run-cli.ts';

const evalSet = `
name: nightly
seed: 1
count: 3
models:
  - ref: builtin/oracle
  - ref: builtin/random
suites:
  - id: funcgen
    set: {core: 4}
    grid: {depth: [1, 2]}
    count: 1200
  - id: nestful
    grid: {calls: [3, 4]}
`;

test('an eval set runs models x knob values x suites as one group, survives a kill, continues, and reports side by side', async () => {
  const directory = temporaryDirectory();
  writeFileSync(join(directory, 'toolforge.config.yaml'), evalSet);
  const child = spawn(process.execPath, [binPath, 'run', '--config', 'toolforge.config.yaml', '--db', 'r.db', '--concurrency', '1'],
    { cwd: directory, env: keylessEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
  const closed = new Promise<number | null>((resolvePromise) => child.on('close', resolvePromise));
  // Kill it once the first run has committed episodes (1,200 funcgen tasks take a while).
  for (let polls = 0; polls < 900; polls += 1) {
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
    if (!existsSync(join(directory, 'r.db'))) continue;
    const listed = await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory });
    if (listed.code !== 0) continue;
    const runs = JSON.parse(listed.stdout) as { status: string; episodes: { scored: number } }[];
    if (runs.some((run) => run.status !== 'finished' && run.episodes.scored > 0)) break;
  }
  child.kill('SIGKILL');
  await closed;
  const before = JSON.parse((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory })).stdout) as { id: string; status: string; model: string }[];
  assert.ok(before.length >= 1 && before.length < 8, `killed part-way: ${before.length} runs`);
  // The run the kill interrupted (the first, or a later one when the first finished between two polls); on a fast
  // machine the kill can also land between two runs, which then leaves none to resume.
  const interrupted = before.filter((run) => run.status !== 'finished');
  assert.ok(interrupted.length <= 1, JSON.stringify(before));

  const resumed = await runCli(['run', '--config', 'toolforge.config.yaml', '--db', 'r.db'], { cwd: directory });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stderr.match(/done already:/g)?.length ?? 0, before.length - interrupted.length, 'finished runs are not run again');
  assert.equal(resumed.stderr.match(/resuming:/g)?.length ?? 0, interrupted.length);
  if (interrupted.length === 1) assert.match(resumed.stderr, new RegExp(`${before.length}/8 resuming: funcgen ${interrupted[0].model} depth=`));
  assert.match(resumed.stderr, /eval set nightly-[0-9a-f]{10}: 8 runs/);
  const after = JSON.parse((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory })).stdout) as { id: string; status: string; suite: string; model: string; passRate: number }[];
  assert.equal(after.length, 8, 'the killed run was continued, not started again');
  assert.ok(after.every((run) => run.status === 'finished'));
  assert.deepEqual(after.filter((run) => run.model === 'builtin/oracle').map((run) => run.passRate), [1, 1, 1, 1]);
  // Side by side: the leaderboard has one row per model and one column per suite.
  assert.match(resumed.stdout, /Leaderboard: pass rate per model and suite/);
  assert.match(resumed.stdout, /\nbuiltin\/oracle +100\.0% \[[^\]]+\] n=\d+ +100\.0% \[[^\]]+\] n=6 +100\.0%\n/);
  assert.match(resumed.stdout, /\nbuiltin\/random +0\.0% /);

  // The same file once more: nothing left to run.
  const again = await runCli(['run', '--config', 'toolforge.config.yaml', '--db', 'r.db'], { cwd: directory });
  assert.equal(again.code, 0, again.stderr);
  assert.equal((again.stderr.match(/done already/g) ?? []).length, 8);
  // The command that reports it again reads the database the eval set wrote.
  assert.match(again.stderr, /report it again with: toolforge report --sweep \S+ --db r\.db\n/);
});

test('a bad eval set names the field and the fix, before anything runs', async () => {
  const directory = temporaryDirectory();
  const cases: { text: string; message: RegExp }[] = [
    { text: 'models: []\nsuites: [{id: funcgen}]\n', message: /models/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen}, {id: nope}]\n', message: /eval set field 'suites\[1\]\.id': unknown suite 'nope'/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen, grid: {core: [5, 1]}}]\n', message: /eval set field 'suites\[0\]\.grid\.core\[1\]': suite 'funcgen' knob 'core' cannot be '1'\n {2}fix: give core a value that is: integer in \[2, 200\]/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen, grid: {colour: [1]}}]\n', message: /eval set field 'suites\[0\]\.grid\.colour': suite 'funcgen' has no knob 'colour'/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen, set: {restate: maybe}}]\n', message: /eval set field 'suites\[0\]\.set\.restate': .*cannot be 'maybe'\n {2}fix: give restate a value that is: true\|false/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen, grid: {core: [5, 6, 5]}}]\n', message: /eval set field 'suites\[0\]\.grid\.core' needs distinct values \('5' twice\): the same point would run twice/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen, grid: {core: [5, \'05\']}}]\n', message: /'suites\[0\]\.grid\.core' needs distinct values \('5' and '05' are both 5\)/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen, set: {core: 5}, grid: {core: [5, 6]}}]\n', message: /'suites\[0\]\.grid\.core': knob 'core' is both swept \(grid\) and fixed \(set\)/ },
    { text: 'models: [{ref: builtin/oracle, baseUrl: "not a url"}]\nsuites: [{id: funcgen}]\n', message: /baseUrl/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen, modes: [calls, code]}]\n', message: /eval set field 'suites\[0\]\.modes\[1\]': suite 'funcgen' does not support mode 'code'/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen, transforms: [[], [rename-tools, nope]]}]\n', message: /eval set field 'suites\[0\]\.transforms\[1\]\[1\]': no transform 'nope'/ },
    { text: 'models: [{ref: builtin/oracle}, {ref: builtin/nope}]\nsuites: [{id: funcgen}]\n', message: /eval set field 'models\[1\]\.ref': suite 'funcgen' has no built-in model 'nope'/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen, colour: red}]\n', message: /colour/ },
    { text: 'models: [{ref: builtin/oracle, temperature: -0.5}]\nsuites: [{id: funcgen}]\n', message: /models\[0\]\.temperature/ },
    { text: 'models: [{ref: builtin/random}, {ref: builtin/oracle, baseUrl: "http://127.0.0.1:9/v1"}]\nsuites: [{id: funcgen}]\n', message: /gives models\[1\]\.baseUrl to 'builtin\/oracle', which runs in this process and calls no endpoint\n {2}fix: drop models\[1\]\.baseUrl/ },
    // The same entry twice would run the same thing twice; the same reference with other settings is allowed (below).
    { text: 'models: [{ref: builtin/oracle, temperature: 0}, {ref: builtin/random}, {temperature: 0, ref: builtin/oracle}]\nsuites: [{id: funcgen}]\n', message: /lists model 'builtin\/oracle' twice with the same settings \(models\[0\] and models\[2\]\)\n {2}fix: list each model once, or give the two entries different baseUrl, temperature/ },
    { text: 'models: [\n', message: /not valid YAML/ },
    // A misspelt field is named beside the missing one it was meant to be.
    { text: 'modles: [{ref: builtin/oracle}]\nsuites: [{id: funcgen}]\n', message: /field 'models': .*received undefined \(the object has 'modles' instead: misspelt\?\)/ },
    { text: 'models: [{ref: builtin/oracle}]\nsuites: [{idd: funcgen}]\n', message: /field 'suites\[0\]\.id': .*received undefined \(the object has 'idd' instead: misspelt\?\)/ },
    // The endpoint comes from the model's entry in the file: the error says so, not --base-url.
    { text: 'models: [{ref: openai-compatible/local}]\nsuites: [{id: funcgen}]\n', message: /needs a baseUrl in its models entry of the eval set: [^\n]*\n {2}fix: [^\n]*e\.g\. baseUrl: http:\/\/127\.0\.0\.1:8000\/v1/ },
  ];
  for (const { text, message } of cases) {
    writeFileSync(join(directory, 'bad.yaml'), text);
    const result = await runCli(['run', '--config', 'bad.yaml', '--db', 'r.db'], { cwd: directory });
    assert.equal(result.code, 2, text);
    assert.match(result.stderr, message, text);
    assert.match(result.stderr, /fix: /, text);
  }
  // JSON keeps the last of a repeated key silently; YAML's parser refuses it. Both are refused, naming the key.
  for (const [file, text, message] of [
    ['bad.json', '{"models": [{"ref": "builtin/oracle"}], "suites": [{"id": "funcgen", "set": {"core": 4,\n "core": 5}}]}', /gives the key 'core' twice in one object \(line 2, column 2\): only the last would be used\n {2}fix: give 'core' once/],
    ['bad.yaml', 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen, count: 2, count: 3}]\n', /not valid YAML: Map keys must be unique/],
  ] as const) {
    writeFileSync(join(directory, file), text);
    const result = await runCli(['run', '--config', file, '--db', 'r.db'], { cwd: directory });
    assert.equal(result.code, 2, text);
    assert.match(result.stderr, message, text);
  }
  writeFileSync(join(directory, 'prices.json'), '{"builtin/oracle": {"input": 1, "output": 1}, "builtin/oracle": {"input": 2, "output": 2}}');
  const prices = await runCli(['report', '--prices', 'prices.json', '--db', 'r.db'], { cwd: directory });
  assert.equal(prices.code, 2, prices.stderr);
  assert.match(prices.stderr, /price file '.*prices\.json' gives 'builtin\/oracle' twice in one object \(line 1, column 47\)/);
  const combined = await runCli(['run', 'funcgen', '--config', 'bad.yaml', '--model', 'builtin/oracle'], { cwd: directory });
  assert.equal(combined.code, 2);
  assert.match(combined.stderr, /cannot be combined with it/);
  assert.equal(JSON.parse((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory })).stdout).length, 0);
});

test('one model reference listed with two settings is two runs per cell, told apart in progress, report and continuation', async () => {
  // A provider model (built-in ones take no settings), served by a stand-in that answers every request.
  const server = await startConversationServer({ toolTurns: 0 });
  try {
    const directory = temporaryDirectory();
    const env = { ...keylessEnvironment(), OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseUrl };
    writeFileSync(join(directory, 'set.yaml'), 'count: 2\nmodels:\n  - ref: openai/gpt-4.1-mini\n  - ref: openai/gpt-4.1-mini\n    temperature: 0.5\nsuites:\n  - id: funcgen\n    grid: {core: [4, 5]}\n');
    const first = await runCli(['run', '--config', 'set.yaml', '--db', 'r.db'], { cwd: directory, env });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /1\/4 running: funcgen openai\/gpt-4\.1-mini \(default settings\) core=4\n2\/4 running: funcgen openai\/gpt-4\.1-mini \(temperature=0\.5\) core=4\n/);
    assert.match(first.stdout, /^openai\/gpt-4\.1-mini \(default settings\) +\d+\.\d% .* n=4/m);
    assert.match(first.stdout, /^openai\/gpt-4\.1-mini \(temperature=0\.5\) +\d+\.\d% .* n=4/m);
    // Each entry's setting reached its own requests: 2 cells x 2 tasks, one request each, per entry.
    const temperatures = server.requests.map((request) => (request.body as { temperature?: number }).temperature);
    assert.deepEqual([temperatures.filter((value) => value === 0.5).length, temperatures.filter((value) => value === undefined).length], [4, 4]);
    const runs = JSON.parse((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory, env })).stdout) as unknown[];
    assert.equal(runs.length, 4);
    // Run again, each of the four is found as its own cell, none is run again.
    const again = await runCli(['run', '--config', 'set.yaml', '--db', 'r.db'], { cwd: directory, env });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stderr.match(/done already:/g)?.length, 4);
    assert.equal((JSON.parse((await runCli(['runs', '--json', '--db', 'r.db'], { cwd: directory, env })).stdout) as unknown[]).length, 4);
    assert.equal(server.requests.length, 8);
  } finally {
    await server.close();
  }
});

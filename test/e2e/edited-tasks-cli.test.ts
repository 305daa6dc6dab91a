/**
 * A tasks file changed after `toolforge generate` wrote it: a ground truth that no longer agrees with itself is refused
 * before anything is stored, naming the task, the field and the fix. funcgen's graph is checked value by value, and its
 * tool list against the graph (its environment answers from the stored values, so its oracle would pass a broken
 * task); every suite's file tasks are solved by builtin/oracle first (`--no-validate` skips that, not the consistency check), for `run` and `serve` alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, spawnCli, keylessEnvironment, temporaryDirectory } from './run-cli.ts';

type EditableTask = { id: string; expected: Record<string, unknown> & { target?: { value: number }; functions?: { name: string; parameters: { name: string; value: number; source: { kind: string } }[] }[] } };

function edit(directory: string, from: string, to: string, change: (tasks: EditableTask[]) => void): void {
  const tasks = readFileSync(join(directory, from), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as EditableTask);
  change(tasks);
  writeFileSync(join(directory, to), `${tasks.map((task) => JSON.stringify(task)).join('\n')}\n`);
}

async function runCount(directory: string, database: string): Promise<number> {
  const listed = await runCli(['runs', '--json', '--db', database], { cwd: directory });
  return listed.code === 0 ? (JSON.parse(listed.stdout) as unknown[]).length : 0;
}

test('a funcgen task edited out of agreement with itself is refused, with or without --no-validate, naming the field', async () => {
  const directory = temporaryDirectory();
  assert.equal((await runCli(['generate', 'funcgen', '--count', '3', '--out', 'tasks.jsonl'], { cwd: directory })).code, 0);
  edit(directory, 'tasks.jsonl', 'target.jsonl', (tasks) => { tasks[1].expected.target!.value += 1; });
  edit(directory, 'tasks.jsonl', 'parameter.jsonl', (tasks) => {
    const fn = tasks[2].expected.functions!.find((candidate) => candidate.parameters.some((parameter) => parameter.source.kind === 'function'))!;
    fn.parameters.find((parameter) => parameter.source.kind === 'function')!.value += 1;
  });
  for (const [file, message] of [
    ['target.jsonl', /error: \S*target\.jsonl:2: task 'funcgen\/0\/1': expected\.target\.value: the target \w+ = \d+, but \w+ returns \w+ = \d+\n {2}fix: regenerate the task with 'toolforge generate funcgen'/],
    ['parameter.jsonl', /error: \S*parameter\.jsonl:3: task 'funcgen\/0\/2': expected\.functions\[\d+\]\.parameters\[\d+\]\.value: \w+'s parameter \w+ is \d+, but its source \w+ returns \d+\n/],
  ] as const) {
    for (const flags of [[], ['--no-validate']]) {
      const result = await runCli(['run', '--tasks', file, '--model', 'builtin/planner', '--db', 'r.db', ...flags], { cwd: directory });
      assert.equal(result.code, 2, `${file} ${flags.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  }
  assert.equal(await runCount(directory, 'r.db'), 0, 'nothing stored');
  const unchanged = await runCli(['run', '--tasks', 'tasks.jsonl', '--model', 'builtin/planner', '--db', 'r.db', '--json'], { cwd: directory });
  assert.equal(unchanged.code, 0, unchanged.stderr);
  assert.equal(JSON.parse(unchanged.stdout).passRate, 1);
});

test('a funcgen task whose tool list was edited (a needed function taken out, an extra tool, a renamed parameter) is refused naming the tool; transformed tasks keep their changed tools', async () => {
  const directory = temporaryDirectory();
  assert.equal((await runCli(['generate', 'funcgen', '--count', '2', '--out', 'tasks.jsonl'], { cwd: directory })).code, 0);
  type ToolEdit = { tools: { name: string; inputSchema: { properties: Record<string, unknown>; required: string[] } }[]; expected: { solution: string[] } };
  const editTools = (to: string, change: (task: ToolEdit) => void): void => edit(directory, 'tasks.jsonl', to, (tasks) => change(tasks[1] as unknown as ToolEdit));
  editTools('removed.jsonl', (task) => { task.tools = task.tools.filter((tool) => tool.name !== task.expected.solution[0]); });
  editTools('extra.jsonl', (task) => { task.tools.push({ ...task.tools[0], name: 'func_extra' }); });
  editTools('renamed.jsonl', (task) => {
    const tool = task.tools.find((candidate) => candidate.name === task.expected.solution[0])!;
    tool.inputSchema.properties = { renamed: { type: 'integer' } };
    tool.inputSchema.required = ['renamed'];
  });
  for (const [file, message] of [
    ['removed.jsonl', /error: \S*removed\.jsonl:2: task 'funcgen\/0\/1': field 'tools': func_\w+ is a function of the task's graph with no tool, so no model can call it\n {2}fix: regenerate/],
    ['extra.jsonl', /error: \S*extra\.jsonl:2: task 'funcgen\/0\/1': field 'tools\[\d+\]\.name': 'func_extra' is not a function of the task's graph/],
    ['renamed.jsonl', /error: \S*renamed\.jsonl:2: task 'funcgen\/0\/1': field 'tools\[\d+\]\.inputSchema\.properties' \(tool 'func_\w+'\): lists renamed, but the function takes \w+/],
  ] as const) {
    const result = await runCli(['run', '--tasks', file, '--model', 'builtin/oracle', '--db', 'r.db', '--no-validate'], { cwd: directory });
    assert.equal(result.code, 2, `${file}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.equal(result.stderr.split('fix:').length - 1, 1, `${file}: the fix is given once: ${result.stderr}`);
  }
  // Checked by the oracle too (the default), and by serve before it listens: the same line named.
  const checked = await runCli(['run', '--tasks', 'removed.jsonl', '--model', 'builtin/oracle', '--db', 'r.db'], { cwd: directory });
  assert.match(checked.stderr, /error: \S*removed\.jsonl:2: task 'funcgen\/0\/1': field 'tools'/);
  const served = await runCli(['serve', '--tasks', 'removed.jsonl', '--db', 'r.db', '--port', '0', '--no-validate'], { cwd: directory });
  assert.equal(served.code, 2, served.stderr);
  assert.match(served.stderr, /error: \S*removed\.jsonl:2: task 'funcgen\/0\/1': field 'tools'/);
  assert.equal(await runCount(directory, 'r.db'), 0, 'nothing stored');
  for (const transform of ['rename-tools', 'drift:op=all']) {
    const transformed = await runCli(['run', '--tasks', 'tasks.jsonl', '--transform', transform, '--model', 'builtin/oracle', '--db', 'r.db', '--json'], { cwd: directory });
    assert.equal(transformed.code, 0, `${transform}: ${transformed.stderr}`);
    assert.equal(JSON.parse(transformed.stdout).passRate, 1, transform);
  }
});

test('a task whose gold its own tools do not give is refused by builtin/oracle before run or serve starts; --no-validate runs it as it is', async () => {
  const directory = temporaryDirectory();
  assert.equal((await runCli(['generate', 'nestful', '--count', '3', '--out', 'tasks.jsonl'], { cwd: directory })).code, 0);
  edit(directory, 'tasks.jsonl', 'edited.jsonl', (tasks) => { tasks[2].expected.goldAnswerJson = '12345'; });
  const refused = await runCli(['run', '--tasks', 'edited.jsonl', '--model', 'builtin/oracle', '--db', 'r.db'], { cwd: directory });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /error: edited\.jsonl:3: task 'nestful\/0\/2' is not solvable: builtin\/oracle scored 0 \(result\.wrong: the calls compute [-\d.e]+, gold is 12345; termination final-answer\)\n {2}fix: its ground truth is not what its own tools give \(it was changed after 'toolforge generate nestful' wrote it, or made by hand\): generate it again \(the same --seed and --set\), correct it, or pass --no-validate to run edited\.jsonl as it is\n/);
  assert.equal(await runCount(directory, 'r.db'), 0, 'nothing stored');
  // serve checks the file before it listens: the same refusal, no endpoint.
  const served = await spawnCli(['serve', '--tasks', 'edited.jsonl', '--db', 'r.db', '--port', '0'], { cwd: directory, env: keylessEnvironment() });
  assert.equal(served.code, 2, served.stderr);
  assert.match(served.stderr, /error: edited\.jsonl:3: task 'nestful\/0\/2' is not solvable: builtin\/oracle scored 0/);
  assert.doesNotMatch(served.stderr, /serving /);
  // Derived by --transform, the refused task is still named by the line it was read from.
  for (const command of [['run', '--model', 'builtin/oracle'], ['serve', '--port', '0']]) {
    const derived = await spawnCli([...command, '--tasks', 'edited.jsonl', '--transform', 'perturb:kind=case-mix', '--transform', 'rename-tools', '--db', 'r.db'], { cwd: directory, env: keylessEnvironment() });
    assert.equal(derived.code, 2, derived.stderr);
    assert.match(derived.stderr, /error: edited\.jsonl:3: task 'nestful\/0\/2~perturb~rename-tools' is not solvable: builtin\/oracle scored 0/, command[0]);
  }
  assert.equal(await runCount(directory, 'r.db'), 0, 'nothing stored');
  const asIs = await runCli(['run', '--tasks', 'edited.jsonl', '--model', 'builtin/oracle', '--db', 'r.db', '--no-validate', '--json'], { cwd: directory });
  assert.equal(asIs.code, 0, asIs.stderr);
  assert.equal(JSON.parse(asIs.stdout).passRate, 2 / 3);
});

test('--no-validate without --tasks is refused, for run and serve, before anything runs', async () => {
  const directory = temporaryDirectory();
  for (const args of [['run', 'funcgen', '--model', 'builtin/planner'], ['serve', 'funcgen']]) {
    const result = await runCli([...args, '--no-validate', '--db', 'r.db'], { cwd: directory });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /error: --no-validate skips builtin\/oracle's solve of a --tasks file's tasks, and no --tasks is given\n {2}fix: add --tasks <file>, or drop --no-validate/);
  }
  assert.equal(await runCount(directory, 'r.db'), 0);
});

/**
 * `import` of an export edited by hand: what would make the stored run disagree with itself, or with what the suite
 * checks when a task enters a run, is refused naming the line and the field, and nothing is imported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, temporaryDirectory } from './run-cli.ts';

type Line = Record<string, any>;

test('an export edited out of agreement (a task\'s ground truth, the run id or time, an episode\'s model or score, a suite version) is refused', async () => {
  const directory = temporaryDirectory();
  const run = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '2', '--db', 'a.db', '--json'], { cwd: directory });
  assert.equal(run.code, 0, run.stderr);
  assert.equal((await runCli(['export', 'latest', '--db', 'a.db', '--out', 'run.jsonl'], { cwd: directory })).code, 0);
  const lines = readFileSync(join(directory, 'run.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Line);
  const edits: [string, (lines: Line[]) => void, RegExp][] = [
    ['target', (all) => { all[1].task.expected.target.value += 1000; }, /run\.jsonl:2: task 'funcgen\/\d+\/0': expected\.target\.value: the target/],
    ['tools', (all) => { all[1].task.tools.pop(); }, /run\.jsonl:2: task 'funcgen\/\d+\/0': field 'tools': func_\w+ is a function of the task's graph with no tool/],
    ['version', (all) => { all[2].task.suite.version = '1.0.0'; }, /run\.jsonl:3: task 'funcgen\/\d+\/1' is of funcgen version 1\.0\.0, the run of version/],
    ['latest', (all) => { all[0].run.id = 'latest'; for (const line of all) if (line.type === 'episode') line.episode.runId = 'latest'; }, /run\.jsonl:1: field 'run\.id' is 'latest', which commands read as a word/],
    ['created', (all) => { all[0].run.createdAt = 'yesterday'; }, /run\.jsonl:1: field 'run\.createdAt' is 'yesterday', not an ISO 8601 time/],
    ['model', (all) => { all[3].episode.model = 'openai/gpt-4.1'; }, /run\.jsonl:4: field 'episode\.model' is 'openai\/gpt-4\.1', but the run's model is 'builtin\/oracle'/],
    ['score', (all) => { all[3].episode.score.passed = false; }, /run\.jsonl:4: episode \(task 'funcgen\/\d+\/0', trial 0\) has field 'episode\.score\.passed' false with 'episode\.score\.value' 1/],
  ];
  for (const [name, edit, message] of edits) {
    const copy = structuredClone(lines);
    edit(copy);
    writeFileSync(join(directory, 'run.jsonl'), `${copy.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const imported = await runCli(['import', 'run.jsonl', '--db', `${name}.db`], { cwd: directory });
    assert.equal(imported.code, 2, `${name}: ${imported.stderr}`);
    assert.match(imported.stderr, message, name);
  }
  writeFileSync(join(directory, 'run.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  const unchanged = await runCli(['import', 'run.jsonl', '--db', 'b.db'], { cwd: directory });
  assert.equal(unchanged.code, 0, unchanged.stderr);
  // Imported again: refused, and the delete it suggests names the database it was imported into, not the default.
  const again = await runCli(['import', 'run.jsonl', '--db', 'b.db'], { cwd: directory });
  assert.equal(again.code, 2, again.stderr);
  const runId = lines[0].run.id as string;
  const suggested = new RegExp(`toolforge delete ${runId} --db (\\S+)\\)`).exec(again.stderr);
  assert.ok(suggested, again.stderr);
  assert.equal(suggested[1], join(directory, 'b.db'));
  assert.equal((await runCli(['delete', runId, '--db', suggested[1]], { cwd: directory })).code, 0);
  assert.equal((await runCli(['import', 'run.jsonl', '--db', 'b.db'], { cwd: directory })).code, 0);
});

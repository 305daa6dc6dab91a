import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeNestfulData } from '../runner/nestful-data.ts';
import { runCli, temporaryDirectory } from './run-cli.ts';

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
  assert.equal(JSON.parse(run.stdout).tasks, 6);

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

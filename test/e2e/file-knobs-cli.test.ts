/**
 * Knobs that name a file (`--set spec=`, `--set data=`) are given as a user types them: relative to the working
 * folder, or anywhere inside a data folder. A task may record the file in another form (webapi: absolute, or
 * `shared:<data set>/...`); the run compares the files, not the text, and a truly different file is still refused.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { fixturePath } from '../require-data.ts';
import { keylessEnvironment, runCli, spawnCli, temporaryDirectory } from './run-cli.ts';

const fixtureSpec = fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml');

test('run webapi --set spec=<file relative to the working folder> runs, and its tasks name the file by its absolute path', async () => {
  const directory = temporaryDirectory();
  copyFileSync(fixtureSpec, join(directory, 'notes.yaml'));
  const run = await spawnCli(['run', 'webapi', '--model', 'builtin/oracle', '--count', '2', '--set', 'spec=notes.yaml', '--db', 'r.db', '--json'], { cwd: directory, env: keylessEnvironment() });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual([JSON.parse(run.stdout).tasks, JSON.parse(run.stdout).passRate], [2, 1]);
  const generated = await spawnCli(['generate', 'webapi', '--count', '1', '--set', 'spec=notes.yaml', '--out', 'tasks.jsonl'], { cwd: directory, env: keylessEnvironment() });
  assert.equal(generated.code, 0, generated.stderr);
  assert.equal(JSON.parse(readFileSync(join(directory, 'tasks.jsonl'), 'utf8')).params.spec, join(directory, 'notes.yaml'));
});

test('run webapi --set spec=<file inside a data folder> runs, its tasks naming the file shared:<data set>/...', async () => {
  const directory = temporaryDirectory();
  const env = { ...keylessEnvironment(), TOOLFORGE_DATA: fixturePath() };
  const run = await spawnCli(['run', 'webapi', '--model', 'builtin/oracle', '--count', '2', '--set', `spec=${fixtureSpec}`, '--db', 'r.db', '--json'], { cwd: directory, env });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual([JSON.parse(run.stdout).tasks, JSON.parse(run.stdout).passRate], [2, 1]);
  const generated = await spawnCli(['generate', 'webapi', '--count', '1', '--set', `spec=${fixtureSpec}`, '--out', 'tasks.jsonl'], { cwd: directory, env });
  assert.equal(generated.code, 0, generated.stderr);
  assert.equal(JSON.parse(readFileSync(join(directory, 'tasks.jsonl'), 'utf8')).params.spec, 'shared:wapiibench/openapi/real_world_specs/notes.yaml');
});

test('tasks made from one spec, run with another spec as the knob, are refused naming the knob', async () => {
  const directory = temporaryDirectory();
  const other = join(directory, 'other.yaml');
  copyFileSync(fixtureSpec, other);
  const suite = getSuite('webapi');
  const params = resolveKnobs('webapi', suite.knobs, { spec: fixtureSpec });
  const tasks = await generateTasks(suite, { seed: 0, count: 1, params, validate: false });
  await assert.rejects(runEvaluation({
    suite, tasks, modelRef: 'builtin/oracle', seed: 0, params: { ...params, spec: other }, dbPath: join(directory, 'r.db'),
  }), (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid' && /options\.params\.spec is '.*other\.yaml', but the tasks were made with spec/.test(error.message));
  // The same file by another name is the same knob.
  const summary = await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', seed: 0, params: { ...params, spec: join(fixtureSpec, '..', 'notes.yaml') }, dbPath: join(directory, 'r.db') });
  assert.equal(summary.passRate, 1);
});

test('an eval set names files from its own folder (set: and grid:), wherever the command runs; a missing one is named', async () => {
  const directory = temporaryDirectory();
  const sets = join(directory, 'sets');
  mkdirSync(sets);
  copyFileSync(fixtureSpec, join(sets, 'notes.yaml'));
  copyFileSync(fixtureSpec, join(sets, 'notes-copy.yaml'));
  writeFileSync(join(sets, 'fixed.yaml'), 'count: 2\nmodels:\n  - ref: builtin/oracle\nsuites:\n  - id: webapi\n    set: {spec: notes.yaml}\n');
  writeFileSync(join(sets, 'swept.yaml'), 'count: 1\nmodels:\n  - ref: builtin/oracle\nsuites:\n  - id: webapi\n    grid: {spec: [notes.yaml, notes-copy.yaml]}\n');
  for (const [file, runs] of [['fixed.yaml', 1], ['swept.yaml', 2]] as const) {
    const result = await runCli(['run', '--config', join('sets', file), '--db', 'r.db', '--json'], { cwd: directory });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`eval set [^:]+: ${runs} runs`));
  }
  // Run from inside the set's folder, the same file gives the same runs: continued, not started again.
  const again = await runCli(['run', '--config', 'fixed.yaml', '--db', join('..', 'r.db')], { cwd: sets });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /1\/1 done already/);
  writeFileSync(join(sets, 'missing.yaml'), 'count: 1\nmodels:\n  - ref: builtin/oracle\nsuites:\n  - id: webapi\n    set: {spec: gone.yaml}\n');
  const missing = await runCli(['run', '--config', join('sets', 'missing.yaml'), '--db', 'r.db'], { cwd: directory });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, new RegExp(`cannot read OpenAPI file '${join(sets, 'gone.yaml').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}': no such file`));
});

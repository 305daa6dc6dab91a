/**
 * Knobs that name a file (`--set spec=`, `--set data=`) are given as a user types them: relative to the working
 * folder, or anywhere inside a data folder. A task may record the file in another form (webapi: absolute, or
 * `shared:<data set>/...`); the run compares the files, not the text, and a truly different file is still refused.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { fixturePath } from '../require-data.ts';
import { writeNestfulData } from '../runner/nestful-data.ts';
import { killWhileStoringTasks, resumeKilledRun } from './partly-stored-run.ts';
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
  // Nowhere to be found: named as the set gives it, read from the working folder as before sets named files from theirs.
  assert.match(missing.stderr, /cannot read OpenAPI file '[^']*gone\.yaml': no such file/);
});

test('an eval set reads a relative replay file from its own folder too; the run is named by the reference as written', async () => {
  const directory = temporaryDirectory();
  const sets = join(directory, 'sets');
  mkdirSync(sets);
  const { data, replay } = writeNestfulData(sets, 3);
  writeFileSync(join(sets, 'replayed.yaml'), `models:\n  - ref: replay/${basename(replay)}\nsuites:\n  - id: nestful\n    set: {data: ${basename(data)}}\n`);
  const result = await runCli(['run', '--config', join('sets', 'replayed.yaml'), '--db', 'r.db', '--json'], { cwd: directory });
  assert.equal(result.code, 0, result.stderr);
  const runs = await runCli(['runs', '--db', 'r.db', '--json'], { cwd: directory });
  const [run] = JSON.parse(runs.stdout) as { id: string; model: string; passRate: number; episodes: { scored: number } }[];
  assert.deepEqual([run.model, run.episodes.scored, run.passRate], [`replay/${basename(replay)}`, 3, 1]);
  // Recorded where it was read: shown, exported and resumed from any folder as that file.
  const shown = await runCli(['export', run.id, '--db', join(directory, 'r.db'), '--out', '-'], { cwd: temporaryDirectory() });
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(JSON.parse(shown.stdout.split('\n')[0]).run.provenance.modelFile, replay);
  // From inside the set's folder, the same set is the same runs.
  const again = await runCli(['run', '--config', 'replayed.yaml', '--db', join('..', 'r.db')], { cwd: sets });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /1\/1 done already/);
  // A replay file in neither place is named as written, from the working folder.
  writeFileSync(join(sets, 'gone.yaml'), `models:\n  - ref: replay/gone.jsonl\nsuites:\n  - id: nestful\n    set: {data: ${basename(data)}}\n`);
  const gone = await runCli(['run', '--config', join('sets', 'gone.yaml'), '--db', 'r.db'], { cwd: directory });
  assert.equal(gone.code, 2, gone.stderr);
  assert.match(gone.stderr, /models\[0\]\.ref.*gone\.jsonl/s);
});

test('a run given --set data=<relative file>, killed while storing its tasks, is resumed from another folder', async () => {
  const directory = temporaryDirectory();
  const { data, replay } = writeNestfulData(directory, 6000);
  const database = join(directory, 'r.db');
  const runId = await killWhileStoringTasks(['run', 'nestful', '--set', `data=${basename(data)}`, '--model', `replay/${basename(replay)}`, '--db', 'r.db'], { cwd: directory, database });
  // The knob was recorded as the file it named: from another folder, the rest of the tasks come from the same file.
  const resumed = await resumeKilledRun(runId, { cwd: temporaryDirectory(), database });
  assert.equal(resumed.code, 0, resumed.stderr);
  const summary = JSON.parse(resumed.stdout);
  assert.deepEqual([summary.tasks, summary.episodes, summary.passRate], [6000, 6000, 1]);
});

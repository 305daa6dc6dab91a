/**
 * Eval sets: which stored runs a second `run --config` keeps, resumes or starts (a killed run keeps its id); entries
 * that would run the same thing twice; built-in models given generation settings; a file that is not an eval set.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { ConfigError } from '../../src/core/errors.ts';
import type { EvalSet } from '../../src/runner/eval-set-config.ts';
import { evalSetSchema, readEvalSetFile } from '../../src/runner/eval-set-config.ts';
import { runEvalSet } from '../../src/runner/run-eval-set.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { runCli } from '../e2e/run-cli.ts';
import { temporaryDirectory } from './test-helpers.ts';

/** What a kill (SIGKILL or Ctrl-C) while a run's tasks streamed in leaves: some tasks, not marked complete, no episode. */
function killWhileStoringTasks(dbPath: string, runId: string, status: 'running' | 'cancelled'): void {
  const database = new Database(dbPath);
  try {
    database.prepare('DELETE FROM episodes WHERE run_id = ?').run(runId);
    database.prepare('DELETE FROM run_tasks WHERE run_id = ? AND ordinal >= 3').run(runId);
    database.prepare('UPDATE runs SET tasks_complete = 0, status = ? WHERE id = ?').run(status, runId);
  } finally {
    database.close();
  }
}

async function configError(action: () => Promise<unknown> | unknown, ...patterns: RegExp[]): Promise<ConfigError> {
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ConfigError, `expected a ConfigError, got ${String(caught)}`);
  for (const pattern of patterns) assert.match(`${caught.message}`, pattern);
  return caught;
}

const threeModels = evalSetSchema.parse({
  seed: 2, count: 6,
  models: [{ ref: 'builtin/oracle' }, { ref: 'builtin/random' }, { ref: 'builtin/planner' }],
  suites: [{ id: 'funcgen', set: { core: 4 }, grid: { depth: [1] } }],
});

describe('eval set continuation', () => {
  test('runs killed while their tasks streamed in (0 episodes) are resumed with their ids, not replaced', async () => {
    const dbPath = join(temporaryDirectory(), 'results.db');
    const store = openResultsStore(dbPath);
    try {
      const first = await runEvalSet({ evalSet: threeModels, store });
      const [oracle, random, planner] = first.runs.map((run) => run.runId);
      // The first cell's run makes the tasks; the second reads them from it. A SIGKILL leaves 'running', Ctrl-C 'cancelled'.
      killWhileStoringTasks(dbPath, oracle, 'running');
      killWhileStoringTasks(dbPath, random, 'cancelled');
      const again = await runEvalSet({ evalSet: threeModels, store });
      assert.deepEqual(again.runs.map((run) => [run.runId, run.action]), [[oracle, 'resume'], [random, 'resume'], [planner, 'done']]);
      assert.equal(store.listRuns().length, 3);
      for (const runId of [oracle, random]) {
        const run = store.getRun(runId);
        assert.deepEqual({ tasks: run.taskCount, status: run.status, complete: store.hasAllTasks(runId), episodes: store.countEpisodes(runId).scored }, { tasks: 6, status: 'finished', complete: true, episodes: 6 });
      }
      const tasksOf = (runId: string) => JSON.stringify(Array.from(store.iterateTasks(runId)));
      assert.equal(tasksOf(oracle), tasksOf(planner));
      assert.equal(tasksOf(random), tasksOf(planner));
      const third = await runEvalSet({ evalSet: threeModels, store });
      assert.deepEqual(third.runs.map((run) => run.action), ['done', 'done', 'done']);
    } finally {
      store.close();
    }
  });

  test('two entries of one suite with different fixed knobs are two runs each time, never one run found for both', async () => {
    const dbPath = join(temporaryDirectory(), 'results.db');
    const evalSet = evalSetSchema.parse({
      seed: 1, count: 2, models: [{ ref: 'builtin/oracle' }],
      suites: [{ id: 'funcgen', set: { core: 4 } }, { id: 'funcgen', set: { core: 6 } }],
    });
    const store = openResultsStore(dbPath);
    try {
      const first = await runEvalSet({ evalSet, store });
      const ids = first.runs.map((run) => run.runId);
      assert.equal(new Set(ids).size, 2);
      assert.deepEqual(ids.map((id) => store.getRun(id).params.core), [4, 6]);
      const again = await runEvalSet({ evalSet, store });
      assert.deepEqual(again.runs.map((run) => [run.runId, run.action]), [[ids[0], 'done'], [ids[1], 'done']]);
    } finally {
      store.close();
    }
  });
});

describe('eval set entries that run the same thing twice', () => {
  const refused = async (suites: unknown[], ...patterns: RegExp[]): Promise<void> => {
    const store = openResultsStore(':memory:');
    try {
      const evalSet = evalSetSchema.parse({ count: 2, models: [{ ref: 'builtin/oracle' }], suites });
      await configError(() => runEvalSet({ evalSet, store }), ...patterns);
      assert.deepEqual(store.listRuns(), [], 'refused before any run is recorded');
    } finally {
      store.close();
    }
  };

  test('the same suite entry twice is refused naming both positions', async () => {
    await refused([{ id: 'funcgen', set: { core: 4 } }, { id: 'nestful' }, { id: 'funcgen', set: { core: 4 } }],
      /eval set entries suites\[0\] and suites\[2\] both run suite 'funcgen' with core=4 depth=3 connected=5 disconnected=5 restate=false/,
      /each model would run it twice/);
  });

  test('overlapping entries (a fixed knob in one, the same value in another\'s grid, or a default spelled out) are refused at the point they share', async () => {
    await refused([{ id: 'funcgen', set: { core: 4 }, grid: { depth: [1, 2] } }, { id: 'funcgen', set: { depth: 2 }, grid: { core: [4, 5] } }],
      /suites\[0\] \(depth=2\) and suites\[1\] \(core=4\) both run suite 'funcgen' with core=4 depth=2 /);
    await refused([{ id: 'funcgen' }, { id: 'funcgen', set: { core: 5 } }], /suites\[0\] and suites\[1\] both run suite 'funcgen' with core=5 depth=3/);
  });

  test('a mode or transform chain listed twice in one entry is refused naming both', async () => {
    await refused([{ id: 'funcgen', modes: ['calls', 'react', 'calls'] }], /eval set field 'suites\[0\]\.modes\[2\]': mode 'calls' is already listed as suites\[0\]\.modes\[0\]/);
    await refused([{ id: 'funcgen', transforms: [['rename-tools'], [], ['rename-tools']] }], /eval set field 'suites\[0\]\.transforms\[2\]': this transform chain is already listed as suites\[0\]\.transforms\[0\]/);
  });

  test('a chain giving drift (which applies once to a task) twice is refused at the chain, before anything runs', async () => {
    await refused([{ id: 'funcgen', transforms: [['drift:op=rename', 'drift:op=type']] }],
      /eval set field 'suites\[0\]\.transforms\[0\]': transform drift is given twice in the chain \(1st and 2nd\)/);
  });

  test('a transform that asks a phrasing model is refused at its field before anything runs: an eval set has none', async () => {
    await refused([{ id: 'funcgen', transforms: [[], ['rename-tools', 'perturb:kind=paraphrase']] }],
      /eval set field 'suites\[0\]\.transforms\[1\]\[1\]': perturb:kind=paraphrase asks a phrasing model to rewrite every task, and an eval set has none/);
  });

  test('one suite with a different count, or different knobs, is allowed', async () => {
    const store = openResultsStore(':memory:');
    try {
      const evalSet = evalSetSchema.parse({ count: 2, models: [{ ref: 'builtin/oracle' }], suites: [{ id: 'funcgen' }, { id: 'funcgen', count: 3 }, { id: 'funcgen', set: { core: 4 } }] });
      const result = await runEvalSet({ evalSet, store });
      assert.deepEqual(result.runs.map((run) => store.getRun(run.runId).taskCount), [2, 3, 2]);
    } finally {
      store.close();
    }
  });
});

describe('generation settings of a built-in model', () => {
  test('an eval set refuses temperature, maxOutputTokens or strictTools on a built-in model, naming the field', async () => {
    const store = openResultsStore(':memory:');
    try {
      for (const [field, value] of [['temperature', 0.5], ['maxOutputTokens', 100], ['strictTools', true]] as const) {
        const evalSet: EvalSet = evalSetSchema.parse({ count: 2, models: [{ ref: 'builtin/random' }, { ref: 'builtin/planner', [field]: value }], suites: [{ id: 'funcgen' }] });
        const error = await configError(() => runEvalSet({ evalSet, store }),
          new RegExp(`eval set field 'models\\[1\\]\\.${field}': 'builtin/planner' is a built-in model: built-in models are deterministic and take no generation settings`));
        assert.match(error.fix ?? '', new RegExp(`drop models\\[1\\]\\.${field}, or give a provider model`));
      }
      assert.deepEqual(store.listRuns(), []);
    } finally {
      store.close();
    }
  });

  test('run refuses --temperature, --max-output-tokens and --strict-tools with a built-in model, naming the flag', async () => {
    const directory = temporaryDirectory();
    for (const flags of [['--temperature', '0.5'], ['--max-output-tokens', '100'], ['--strict-tools']]) {
      const result = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--db', 'r.db', ...flags], { cwd: directory });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, new RegExp(`${flags[0]}: builtin/planner is a built-in model: built-in models are deterministic and take no generation settings\\n {2}fix: drop ${flags[0]}, or pass a provider model`));
    }
  });
});

describe('a file that is not an eval set', () => {
  const directory = temporaryDirectory();
  const task = (id: string) => JSON.stringify({ schemaVersion: 1, id, suite: { id: 'funcgen', version: '2.1.0' }, seed: 0, params: {}, prompt: [{ role: 'user', content: 'go' }], tools: [] });

  test('a tasks file (one task or many) is named as one, with --tasks as the fix', async () => {
    for (const [file, text] of [['tasks.jsonl', `${task('funcgen/1')}\n${task('funcgen/2')}\n`], ['one-task.json', `${task('funcgen/1')}\n`]]) {
      const path = join(directory, file);
      writeFileSync(path, text);
      const error = await configError(() => readEvalSetFile(path), new RegExp(`--config ${path.replace(/[.]/g, '\\.')} line 1: this is a tasks file \\(as \`toolforge generate\` writes it\\), not an eval set`));
      assert.match(error.fix ?? '', /run its tasks with `toolforge run --tasks \S+ --model <ref>`; --config takes an eval set: one JSON or YAML document with models: and suites:/);
    }
  });

  test('outputs to replay and other JSON Lines are named for what they are', async () => {
    const replay = join(directory, 'outputs.jsonl');
    writeFileSync(replay, `${JSON.stringify({ taskId: 'a', output: 'x' })}\n${JSON.stringify({ taskId: 'b', output: 'y' })}\n`);
    await configError(() => readEvalSetFile(replay), /line 1: this is a file of model outputs to replay, not an eval set/);
    const lines = join(directory, 'rows.jsonl');
    writeFileSync(lines, '{"a": 1}\n{"a": 2}\n');
    const error = await configError(() => readEvalSetFile(lines), /rows\.jsonl: this is JSON Lines \(a JSON value on each line\), not an eval set/);
    assert.match(error.fix ?? '', /--config takes an eval set: one JSON or YAML document with models: and suites:/);
  });

  test('through the CLI: the refusal names the file kind, not a YAML syntax error', async () => {
    writeFileSync(join(directory, 'cli-tasks.jsonl'), `${task('funcgen/1')}\n${task('funcgen/2')}\n`);
    const result = await runCli(['run', '--config', 'cli-tasks.jsonl', '--db', 'r.db'], { cwd: directory });
    assert.equal(result.code, 2);
    assert.doesNotMatch(result.stderr, /not valid YAML/);
    assert.match(result.stderr, /cli-tasks\.jsonl line 1: this is a tasks file/);
    assert.match(result.stderr, /fix: run its tasks with `toolforge run --tasks /);
  });

  test('an eval set still reads, and a YAML syntax error in one is still reported as such', () => {
    const good = join(directory, 'set.yaml');
    writeFileSync(good, 'models: [{ref: builtin/oracle}]\nsuites: [{id: funcgen}]\n');
    assert.equal(readEvalSetFile(good).evalSet.models[0].ref, 'builtin/oracle');
    const bad = join(directory, 'bad.yaml');
    writeFileSync(bad, 'models: [\n');
    assert.throws(() => readEvalSetFile(bad), /not valid YAML/);
  });
});

/**
 * A library caller's mistakes get the same typed errors as the CLI's: a ConfigError naming the option and what to
 * pass, before anything is stored, never a TypeError from deep inside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ConfigError } from '../../src/core/errors.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { resumeEvaluation, runEvaluation } from '../../src/runner/run-evaluation.ts';
import type { RunOptions } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { temporaryDirectory } from './test-helpers.ts';

const suite = getSuite('funcgen');
const params = resolveKnobs(suite.id, suite.knobs, { core: '4' });
const tasks = await generateTasks(suite, { seed: 1, count: 2, params });

const isConfigError = (code: string, pattern: RegExp) => (error: unknown): boolean =>
  error instanceof ConfigError && error.code === code && pattern.test(error.message) && (error.fix ?? '') !== '';

test('runEvaluation names the option a caller got wrong, and stores nothing', async () => {
  const dbPath = join(temporaryDirectory(), 'results.db');
  const good = { suite, tasks, modelRef: 'builtin/planner', seed: 1, params, dbPath };
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ suite: undefined }, 'config.invalid', /options\.suite: expected a suite: getSuite\('<id>'\)/],
    [{ suite: 'funcgen' }, 'config.invalid', /options\.suite: /],
    [{ modelRef: undefined }, 'config.invalid', /options\.modelRef: expected a model reference/],
    [{ modelRef: '' }, 'config.invalid', /options\.modelRef: /],
    [{ tasks: 5 }, 'config.invalid', /options\.tasks: expected the tasks: an array, or an iterable/],
    [{ seed: '1' }, 'config.invalid', /options\.seed: expected the whole number the tasks were made with/],
    [{ seed: 1.5 }, 'config.invalid', /options\.seed: /],
    [{ params: undefined }, 'config.invalid', /options\.params: expected the knob values/],
    [{ directory: 5 }, 'config.invalid', /options\.directory: expected the folder a relative replay file is read from/],
    [{ directory: '' }, 'config.invalid', /options\.directory: expected a folder/],
    // A recipe makes the tasks again from the seed alone: a paraphrase (a phrasing model's answer) cannot be in one.
    [{ taskRecipe: { seed: 1, params, transforms: ['perturb:paraphrase'] } }, 'config.invalid', /options\.taskRecipe\.transforms\[0\]: perturb:paraphrase asks a phrasing model/],
    [{ taskRecipe: { seed: 1, params, transforms: ['nope'] } }, 'config.invalid', /options\.taskRecipe\.transforms\[0\]: no transform 'nope'/],
    // A task built by hand is checked in full, naming its place in the stream and the field.
    [{ tasks: [{ id: 'x' }] }, 'input.invalid', /task 0 'x' is not a ToolForge task: field 'schemaVersion'/],
    [{ tasks: [tasks[0], { ...tasks[1], tools: [{ name: 7 }] }] }, 'input.invalid', /task 1 'funcgen\/1\/1' is not a ToolForge task: field 'tools\[0\]\.name'/],
  ];
  for (const [change, code, pattern] of cases) {
    await assert.rejects(runEvaluation({ ...good, ...change } as unknown as RunOptions), isConfigError(code, pattern), String(pattern));
  }
  await assert.rejects(runEvaluation(undefined as unknown as RunOptions), isConfigError('config.invalid', /runEvaluation takes one options object/));
  const store = openResultsStore(dbPath);
  try {
    assert.deepEqual(store.listRuns(), [], 'no bad call stored a run');
  } finally {
    store.close();
  }
  // The same tasks, as made, still run.
  assert.equal((await runEvaluation(good)).passRate, 1);
});

test('generateTasks and resumeEvaluation name what is missing', async () => {
  await assert.rejects(generateTasks(undefined as never, { seed: 1, count: 1, params }), isConfigError('config.invalid', /the first argument must be a suite/));
  await assert.rejects(generateTasks(suite, undefined as never), isConfigError('config.invalid', /no options given/));
  await assert.rejects(generateTasks(suite, { seed: 1, count: 1 } as never), isConfigError('config.invalid', /params must be the knob values/));
  const dbPath = join(temporaryDirectory(), 'results.db');
  await runEvaluation({ suite, tasks, modelRef: 'builtin/planner', seed: 1, params, dbPath });
  await assert.rejects(resumeEvaluation({ dbPath } as never), isConfigError('config.invalid', /options\.runId must be the id of a stored run, got undefined/));
});

test('resumeEvaluation refuses no options or no run id with a ConfigError naming the field, not a TypeError', async () => {
  await assert.rejects(resumeEvaluation(undefined as unknown as Parameters<typeof resumeEvaluation>[0]), isConfigError('config.invalid', /resumeEvaluation takes one options object/));
  await assert.rejects(resumeEvaluation({} as Parameters<typeof resumeEvaluation>[0]), isConfigError('config.invalid', /options\.runId must be the id of a stored run, got undefined/));
});

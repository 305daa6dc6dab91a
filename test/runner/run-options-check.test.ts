/**
 * What a library caller passes to runEvaluation and resumeEvaluation that the run would otherwise ignore or record
 * wrongly: a misspelt option (run with the default instead), or knobs the tasks contradict (a provenance that cannot
 * make the tasks again). Each is refused with a ConfigError naming the field, before a run is stored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ConfigError } from '../../src/core/errors.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { resumeEvaluation, runEvaluation } from '../../src/runner/run-evaluation.ts';
import type { ResumeOptions, RunOptions } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { temporaryDirectory } from './test-helpers.ts';

const funcgen = getSuite('funcgen');
const funcgenParams = resolveKnobs(funcgen.id, funcgen.knobs, { core: '4' });
const funcgenTasks = await generateTasks(funcgen, { seed: 1, count: 2, params: funcgenParams });

const nestful = getSuite('nestful');
const nestfulParams = resolveKnobs(nestful.id, nestful.knobs, {});
const nestfulTasks = await generateTasks(nestful, { seed: 3, count: 2, params: nestfulParams });

/** A ConfigError 'config.invalid' whose message matches every pattern and which has a fix matching `fix`. */
const refusal = (patterns: RegExp[], fix: RegExp) => (error: unknown): boolean => {
  assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
  assert.equal(error.code, 'config.invalid');
  for (const pattern of patterns) assert.match(error.problem, pattern);
  assert.match(error.fix ?? '', fix);
  return true;
};

function storedRunIds(dbPath: string): string[] {
  const store = openResultsStore(dbPath);
  try {
    return store.listRuns().map((run) => run.id);
  } finally {
    store.close();
  }
}

test('runEvaluation refuses a misspelt option, naming it and the nearest option, and stores nothing', async () => {
  const dbPath = join(temporaryDirectory(), 'results.db');
  const good: RunOptions = { suite: funcgen, tasks: funcgenTasks, modelRef: 'builtin/planner', seed: 1, params: funcgenParams, dbPath };
  const cases: [Record<string, unknown>, RegExp[], RegExp][] = [
    [{ trails: 3 }, [/runEvaluation has no option 'trails'/, /did you mean 'trials'\?/], /rename 'trails' to 'trials'/],
    [{ concurency: 8 }, [/no option 'concurency'/, /did you mean 'concurrency'\?/], /rename 'concurency' to 'concurrency'/],
    [{ Seed: 1 }, [/no option 'Seed'/, /did you mean 'seed'\?/], /rename 'Seed' to 'seed'/],
    // A name near no option is named, with every option the function takes.
    [{ colour: 'red' }, [/no option 'colour'/], /leave 'colour' out.*suite, tasks, modelRef/],
    // Every unknown name at once, so a caller fixes them in one go.
    [{ trails: 3, dbpth: 'x.db' }, [/no options 'trails' \(did you mean 'trials'\?\), 'dbpth' \(did you mean 'dbPath'\?\)/], /rename/],
  ];
  for (const [change, patterns, fix] of cases) {
    await assert.rejects(runEvaluation({ ...good, ...change } as RunOptions), refusal(patterns, fix), JSON.stringify(change));
  }
  assert.deepEqual(storedRunIds(dbPath), [], 'no refused call stored a run');
  // The same options, spelt right, run.
  assert.equal((await runEvaluation({ ...good, trials: 2, concurrency: 2 })).trials, 2);
});

test('resumeEvaluation refuses a misspelt option before it opens the run', async () => {
  const dbPath = join(temporaryDirectory(), 'results.db');
  const { runId } = await runEvaluation({ suite: funcgen, tasks: funcgenTasks, modelRef: 'builtin/planner', seed: 1, params: funcgenParams, dbPath });
  await assert.rejects(
    resumeEvaluation({ runId, dbPath, concurency: 2 } as ResumeOptions),
    refusal([/resumeEvaluation has no option 'concurency'/, /did you mean 'concurrency'\?/], /rename 'concurency' to 'concurrency'/),
  );
  // An option runEvaluation takes but a resume does not (the run keeps its own trials) is named with resume's options.
  await assert.rejects(resumeEvaluation({ runId, dbPath, trials: 3 } as ResumeOptions), refusal([/resumeEvaluation has no option 'trials'/], /runId/));
  assert.equal((await resumeEvaluation({ runId, dbPath, concurrency: 2 })).runId, runId);
});

test('runEvaluation refuses knobs the tasks were not made with, naming the knob and both values, and stores nothing', async () => {
  const dbPath = join(temporaryDirectory(), 'results.db');
  const base = { suite: funcgen, tasks: funcgenTasks, modelRef: 'builtin/planner', seed: 1, dbPath };
  await assert.rejects(
    runEvaluation({ ...base, params: resolveKnobs(funcgen.id, funcgen.knobs, { core: '6' }) }),
    refusal([/options\.params\.core is 6, but the tasks were made with core 4/, /task 'funcgen\/1\/0'/], /pass the tasks' own knobs \(params: tasks\[0\]\.params\)/),
  );
  await assert.rejects(
    runEvaluation({ ...base, params: { ...funcgenParams, restate: true } }),
    refusal([/options\.params\.restate is true, but the tasks were made with restate false/], /leave restate out/),
  );
  assert.deepEqual(storedRunIds(dbPath), []);
  // A key that is no knob of the suite is the caller's own note on the run (a sweep's membership), not a knob.
  const summary = await runEvaluation({ ...base, params: { ...funcgenParams, note: 'baseline' } });
  assert.equal(summary.passRate, 1);
});

test('a knob left at a default each task settles for itself is no contradiction', async () => {
  const dbPath = join(temporaryDirectory(), 'results.db');
  // nestful's icl 'auto' becomes each task's own count of examples.
  assert.equal(nestfulParams.icl, 'auto');
  assert.notEqual(nestfulTasks[0].params.icl, 'auto');
  const summary = await runEvaluation({ suite: nestful, tasks: nestfulTasks, modelRef: 'builtin/oracle', seed: 3, params: nestfulParams, dbPath });
  assert.equal(summary.passRate, 1);
  // A value other than the default is compared: 'model' phrasing is not how these tasks were phrased.
  await assert.rejects(
    runEvaluation({ suite: nestful, tasks: nestfulTasks, modelRef: 'builtin/oracle', seed: 3, params: { ...nestfulParams, phrasing: 'model' }, dbPath }),
    refusal([/options\.params\.phrasing is 'model', but the tasks were made with phrasing 'template'/], /params: tasks\[0\]\.params/),
  );
});

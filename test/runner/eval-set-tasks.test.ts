import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { evalSetSchema } from '../../src/runner/eval-set-config.ts';
import { runEvalSet } from '../../src/runner/run-eval-set.ts';
import { openResultsStore } from '../../src/store/results-store.ts';

const evalSet = evalSetSchema.parse({
  seed: 2, count: 6,
  models: [{ ref: 'builtin/oracle' }, { ref: 'builtin/random' }, { ref: 'builtin/planner' }],
  suites: [{ id: 'funcgen', set: { core: 4 }, grid: { depth: [1, 4] } }],
});

test('an eval set makes each cell group\'s tasks once, streamed into its first run; the other models read them from it; a rejected point is skipped', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'toolforge-eval-set-')), 'results.db');
  const store = openResultsStore(path);
  try {
    const result = await runEvalSet({ evalSet, store });
    // depth 4 needs core >= 5: that point is a hole in the grid, refused before a run is recorded.
    assert.equal(result.skipped.length, 1);
    assert.deepEqual(result.runs.map((run) => run.action), ['start', 'start', 'start']);
    assert.equal(store.listRuns({}).length, 3);
    const [first, ...others] = result.runs.map((run) => JSON.stringify(Array.from(store.iterateTasks(run.runId))));
    assert.equal(JSON.parse(first).length, 6);
    for (const other of others) assert.equal(other, first);
  } finally {
    store.close();
  }
});

/** What a Ctrl-C during the first cell's task stream leaves: the run, some tasks, not marked complete, no episode. */
function stopWhileStoringTasks(path: string, runId: string, options: { recipe: 'kept' | 'none' }): void {
  const database = new Database(path);
  database.prepare('DELETE FROM episodes WHERE run_id = ?').run(runId);
  database.prepare('DELETE FROM run_tasks WHERE run_id = ? AND ordinal >= 3').run(runId);
  database.prepare("UPDATE runs SET tasks_complete = 0, status = 'cancelled' WHERE id = ?").run(runId);
  // A run stored before eval sets kept a recipe for every chain.
  if (options.recipe === 'none') database.prepare("UPDATE runs SET provenance = json_remove(provenance, '$.taskRecipe') WHERE id = ?").run(runId);
  database.close();
}

const transformed = { ...evalSet, suites: [{ ...evalSet.suites[0], grid: { depth: [1] }, transforms: [['rename-tools']] }] };

/** The transformed eval set run once on a new database; `check` gets the store and the first run's outcome. */
async function withTransformedEvalSet(check: (store: ReturnType<typeof openResultsStore>, path: string, first: Awaited<ReturnType<typeof runEvalSet>>) => Promise<void>): Promise<void> {
  const path = join(mkdtempSync(join(tmpdir(), 'toolforge-eval-set-')), 'results.db');
  const store = openResultsStore(path);
  try {
    await check(store, path, await runEvalSet({ evalSet: transformed, store }));
  } finally {
    store.close();
  }
}

test('a transformed cell stopped while its tasks streamed in is resumed from its recipe, the chain included: same run, same tasks', async () => {
  await withTransformedEvalSet(async (store, path, first) => {
    const stopped = first.runs[0].runId;
    const tasksBefore = JSON.stringify(Array.from(store.iterateTasks(stopped)));
    assert.deepEqual(store.getRun(stopped).provenance.taskRecipe?.transforms, ['rename-tools']);
    stopWhileStoringTasks(path, stopped, { recipe: 'kept' });
    const again = await runEvalSet({ evalSet: transformed, store });
    assert.deepEqual(again.runs.map((run) => [run.action, run.runId]), [['resume', stopped], ['done', first.runs[1].runId], ['done', first.runs[2].runId]]);
    const resumed = store.getRun(stopped);
    assert.deepEqual({ tasks: resumed.taskCount, status: resumed.status, scored: store.countEpisodes(stopped).scored }, { tasks: 6, status: 'finished', scored: 6 });
    assert.equal(JSON.stringify(Array.from(store.iterateTasks(stopped))), tasksBefore);
  });
});

test('a cell stopped while its tasks streamed in (no episode run yet, no recipe to remake them) is started again when the eval set runs again', async () => {
  await withTransformedEvalSet(async (store, path, first) => {
    const stopped = first.runs[0].runId;
    stopWhileStoringTasks(path, stopped, { recipe: 'none' });
    const again = await runEvalSet({ evalSet: transformed, store });
    assert.deepEqual(again.runs.map((run) => run.action), ['start', 'done', 'done']);
    assert.equal(store.findRun(stopped), undefined);
    const restarted = store.getRun(again.runs[0].runId);
    assert.deepEqual({ tasks: restarted.taskCount, status: restarted.status, scored: store.countEpisodes(restarted.id).scored }, { tasks: 6, status: 'finished', scored: 6 });
    assert.equal(JSON.stringify(Array.from(store.iterateTasks(restarted.id))), JSON.stringify(Array.from(store.iterateTasks(again.runs[1].runId))));
  });
});

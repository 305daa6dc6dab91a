import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
// The package's own name, as a user imports it (the README's library example).
import { generateTasks, getSuite, openResultsStore, renderRunTable, resolveKnobs, runEvaluation, summarizeRun } from 'toolforge';
import { temporaryDirectory } from './run-cli.ts';

test("the README's library example runs and stores its episodes", async () => {
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, { core: '6', depth: '3' });
  const tasks = await generateTasks(suite, { seed: 1, count: 5, params });
  const dbPath = join(temporaryDirectory(), 'results.db');
  const summary = await runEvaluation({ suite, tasks, modelRef: 'builtin/planner', seed: 1, params, dbPath });
  assert.equal(summary.passRate, 1);
  assert.match(renderRunTable(summary), /pass rate 100\.0%/);
  const store = openResultsStore(dbPath);
  try {
    assert.deepEqual(summarizeRun(store, summary.runId), summary);
  } finally {
    store.close();
  }
});

/**
 * An export is the run as its header states it: a run stopped before all its tasks were stored says so (and an import
 * keeps that, so resume stores the rest), and tasks a still-running run stores while the export reads are left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openResultsStore } from '../../src/store/results-store.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { sampleEpisode, sampleRun } from '../runner/test-helpers.ts';

test('a run whose tasks were not all stored exports and imports as such; tasks stored during the export are left out', async () => {
  const tasks = await createFakeSuite().generate({ seed: 7, count: 5, params: {} });
  const source = openResultsStore(':memory:');
  const copy = openResultsStore(':memory:');
  try {
    source.beginRun(sampleRun('run-s'));
    source.appendTasks('run-s', tasks.slice(0, 3), 0);
    source.saveEpisodes(tasks.slice(0, 3).map((task) => sampleEpisode('run-s', task.id, 0)));
    const lines = source.iterateExportLines('run-s')[Symbol.iterator]();
    const header = JSON.parse(lines.next().value as string) as { tasksComplete?: boolean; run: { taskCount: number } };
    assert.deepEqual([header.tasksComplete, header.run.taskCount], [false, 3]);
    // The run goes on while the export reads.
    source.appendTasks('run-s', tasks.slice(3), 3);
    source.saveEpisodes(tasks.slice(3).map((task) => sampleEpisode('run-s', task.id, 0)));
    const rest = [...{ [Symbol.iterator]: () => lines }] as string[];
    assert.deepEqual(JSON.parse(rest.at(-1) as string), { type: 'end', tasks: 3, episodes: 3 });
    const imported = copy.importRunLines([JSON.stringify(header), ...rest], 'export.jsonl');
    assert.equal(imported.taskCount, 3);
    assert.equal(copy.hasAllTasks('run-s'), false, 'resume stores the rest of the tasks');
    source.completeTasks('run-s');
    const complete = JSON.parse(source.iterateExportLines('run-s')[Symbol.iterator]().next().value as string) as { tasksComplete?: boolean };
    assert.equal('tasksComplete' in complete, false, 'a complete run\'s header is as before');
  } finally {
    source.close();
    copy.close();
  }
});

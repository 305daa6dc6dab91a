/**
 * An export is the run as its header states it: a run stopped before all its tasks were stored says so (and an import
 * keeps that, so resume stores the rest), and what other connections change while the export reads is not in it (one
 * snapshot on SQLite; tasks past the header's count left out on any store).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openResultsStore } from '../../src/store/results-store.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { sampleEpisode, sampleRun, temporaryDirectory } from '../runner/test-helpers.ts';
import { taskRow } from '../../src/store/task-row.ts';

test('a run whose tasks were not all stored exports and imports as such; tasks stored during the export are left out', async () => {
  const tasks = await createFakeSuite().generate({ seed: 7, count: 5, params: {} });
  const source = openResultsStore(':memory:');
  const copy = openResultsStore(':memory:');
  try {
    source.beginRun(sampleRun('run-s'));
    source.appendTasks('run-s', tasks.slice(0, 3).map(taskRow), 0);
    source.saveEpisodes(tasks.slice(0, 3).map((task) => sampleEpisode('run-s', task.id, 0)));
    const lines = source.iterateExportLines('run-s')[Symbol.iterator]();
    const header = JSON.parse(lines.next().value as string) as { tasksComplete?: boolean; run: { taskCount: number } };
    assert.deepEqual([header.tasksComplete, header.run.taskCount], [false, 3]);
    // The run goes on while the export reads.
    source.appendTasks('run-s', tasks.slice(3).map(taskRow), 3);
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

test('an export reads one snapshot: the run deleted by another connection mid-export is still written whole', async () => {
  const path = join(temporaryDirectory(), 'snapshot.db');
  const tasks = await createFakeSuite().generate({ seed: 7, count: 300, params: {} });
  const writer = openResultsStore(path);
  writer.beginRun(sampleRun('run-d'));
  writer.appendTasks('run-d', tasks.map(taskRow), 0);
  writer.completeTasks('run-d');
  writer.saveEpisodes(tasks.map((task) => sampleEpisode('run-d', task.id, 0)));
  const reader = openResultsStore(path, { readOnly: true });
  try {
    const lines = reader.iterateExportLines('run-d')[Symbol.iterator]();
    const read: string[] = [];
    for (let index = 0; index < 10; index += 1) read.push(lines.next().value as string);
    writer.deleteRun('run-d');
    for (let next = lines.next(); !next.done; next = lines.next()) read.push(next.value);
    assert.deepEqual(JSON.parse(read.at(-1) as string), { type: 'end', tasks: 300, episodes: 300 });
    assert.equal(read.length, 1 + 300 + 300 + 1);
  } finally {
    reader.close();
    writer.close();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../../src/core/errors.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { sampleEpisode, sampleRun, temporaryDirectory } from '../runner/test-helpers.ts';
import { taskRow } from '../../src/store/task-row.ts';

/** A stored run of three tasks with an episode each, then `damage` run on the file by SQL, as an edit or a disk fault would. */
async function damagedStore(name: string, damage: string): Promise<string> {
  const path = join(temporaryDirectory(), `${name}.db`);
  const tasks = await createFakeSuite().generate({ seed: 7, count: 3, params: {} });
  const store = openResultsStore(path);
  store.beginRun(sampleRun('run-d'));
  store.appendTasks('run-d', tasks.map(taskRow), 0);
  store.saveEpisodes(tasks.map((task) => sampleEpisode('run-d', task.id, 0)));
  store.close();
  const database = new Database(path);
  database.exec(damage);
  database.close();
  return path;
}

const isDamaged = (pattern: RegExp) => (error: unknown): boolean =>
  error instanceof ConfigError && error.code === 'store.invalid' && pattern.test(error.message) && /restore it from a backup or an export/.test(error.fix ?? '');

test('a damaged row is a store.invalid error naming the run, the row and the column, from every reader, never a crash', async () => {
  const brokenTask = await damagedStore('task', "UPDATE run_tasks SET task = '{broken' WHERE ordinal = 1");
  let store = openResultsStore(brokenTask);
  try {
    const task = /run 'run-d' task 1: its stored task is damaged/;
    assert.throws(() => store.listTasks('run-d'), isDamaged(task));
    assert.throws(() => [...store.iterateTasks('run-d')], isDamaged(task));
    assert.throws(() => store.listTasksBetween('run-d', 0, 2), isDamaged(task));
    // The database's own JSON reader refuses it first; the error still names the task.
    assert.throws(() => [...store.iterateTaskParamsAndStats('run-d')], isDamaged(task));
    assert.throws(() => store.exportRun('run-d'), isDamaged(task));
    assert.equal(store.listTaskIds('run-d').length, 3);
  } finally {
    store.close();
  }
  const brokenScore = await damagedStore('score', "UPDATE episodes SET score = '{\"value\": 1,' WHERE trial = 0 AND task_id = (SELECT task_id FROM run_tasks WHERE ordinal = 2)");
  store = openResultsStore(brokenScore);
  try {
    assert.throws(() => [...store.iterateEpisodeOutcomes('run-d')], isDamaged(/run 'run-d' task '[^']+' trial 0: its stored score is damaged/));
    // The scores a summary reads name the same row.
    assert.throws(() => [...store.iterateScores('run-d')], isDamaged(/run 'run-d' task '[^']+' trial 0: its stored score is damaged/));
  } finally {
    store.close();
  }
  const brokenTranscript = await damagedStore('transcript', "UPDATE episodes SET messages = 'xx', messages_encoding = 'json', prompt_messages = 0 WHERE rowid = 1");
  store = openResultsStore(brokenTranscript);
  try {
    assert.throws(() => store.listEpisodes('run-d'), isDamaged(/the stored transcript of run 'run-d' task '[^']+' trial 0 is damaged/));
  } finally {
    store.close();
  }
});

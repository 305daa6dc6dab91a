/**
 * The episode writer thread stores exactly what group commit stores (the same row bytes: transcripts compressed on the
 * thread as encodeTranscript would have), and a write that fails there fails the run's next add and its close.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openResultsStore } from '../../src/store/results-store.ts';
import { createGroupCommit } from '../../src/runner/group-commit.ts';
import { canWriteOnThread, startEpisodeWriter } from '../../src/runner/episode-writer.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { resolveModelSource } from '../../src/runner/resolve-model-source.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { sampleEpisode, sampleRun, temporaryDirectory } from './test-helpers.ts';

const tasks = await createFakeSuite().generate({ seed: 7, count: 4, params: {} });

/** Episodes with short transcripts (stored as JSON) and long ones (gzip), and one with the task's prompt first. */
function episodes(runId: string) {
  return tasks.flatMap((task, index) => [0, 1].map((trial) => sampleEpisode(runId, task.id, trial, index % 2 === 0 ? {} : {
    messages: [{ role: 'user', content: `a long question ${'about sums '.repeat(300 * (trial + 1))}` }, { role: 'assistant', content: '3', toolCalls: [] }],
  })));
}

const columns = 'task_id, trial, status, score, messages, messages_encoding, prompt_messages, trace, retries, error';

describe('episode writer thread', () => {
  test('stores the rows group commit stores, byte for byte', async () => {
    const directory = temporaryDirectory();
    const rows = async (threaded: boolean) => {
      const store = openResultsStore(join(directory, `${threaded ? 'thread' : 'group'}.db`));
      store.createRun(sampleRun('run-w'), tasks);
      assert.equal(canWriteOnThread(store), true);
      const commits = threaded ? startEpisodeWriter(store, { maxBatch: 3, maxDelayMs: 5 }) : createGroupCommit(store, { maxBatch: 3, maxDelayMs: 5 });
      for (const episode of episodes('run-w')) commits.add(episode, tasks[0].prompt);
      await commits.close();
      const stored = store.listEpisodes('run-w');
      store.close();
      return stored;
    };
    const [group, thread] = [await rows(false), await rows(true)];
    assert.equal(thread.length, 8);
    assert.deepEqual(thread, group);
    // The bytes too, not only what they decode to: both encodings occur, each the same.
    const database = (await import('better-sqlite3')).default;
    const read = (name: string) => new database(join(directory, name), { readonly: true }).prepare(`SELECT ${columns} FROM episodes ORDER BY task_id, trial`).all();
    const [groupRows, threadRows] = [read('group.db'), read('thread.db')];
    assert.deepEqual(threadRows, groupRows);
    assert.deepEqual(new Set(threadRows.map((row) => (row as { messages_encoding: string }).messages_encoding)), new Set(['json', 'gzip']));
  });

  test('a write that fails on the thread fails the next add and close with its error; nothing after it is written', async () => {
    const directory = temporaryDirectory();
    const store = openResultsStore(join(directory, 'results.db'));
    store.createRun(sampleRun('run-x'), tasks);
    const writer = startEpisodeWriter(store, { maxBatch: 1, maxDelayMs: 5 });
    // An episode of a run the store does not have breaks the episodes table's foreign key.
    writer.add(sampleEpisode('run-missing', tasks[0].id, 0));
    let failure: unknown;
    // The thread starts, opens the database and fails in its own time (over 2 s on a busy machine, where 200 tries of
    // 10 ms ran out first): the bound only stops a writer that never fails from hanging the suite.
    for (let attempt = 0; attempt < 6_000 && failure === undefined; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      try {
        writer.add(sampleEpisode('run-x', tasks[1].id, attempt));
      } catch (error) {
        failure = error;
      }
    }
    assert.match(String(failure), /FOREIGN KEY/);
    await assert.rejects(writer.close(), /FOREIGN KEY/);
    // The run stops at the failure: the rows handed over after it are not written behind its back.
    assert.equal(store.countEpisodes('run-x').scored, 0);
    store.close();
  });

  test('a run long enough for the thread stores every episode and summarises as one written on the run thread', async () => {
    const funcgen = getSuite('funcgen');
    const params = resolveKnobs(funcgen.id, funcgen.knobs, { core: '4', connected: '1', disconnected: '1' });
    const funcgenTasks = await generateTasks(funcgen, { seed: 5, count: 64, params, validate: false });
    const directory = temporaryDirectory();
    const run = (trials: number, name: string) => runEvaluation({ suite: funcgen, tasks: funcgenTasks, trials, modelRef: 'builtin/planner', seed: 5, params, concurrency: 4, dbPath: join(directory, name) });
    // 64 x 32 = 2,048 episodes: written on the thread; 64 x 31 on the run's thread.
    const threaded = await run(32, 'thread.db');
    const direct = await run(31, 'direct.db');
    assert.equal(threaded.episodes, 2048);
    assert.equal(threaded.passRate, 1);
    assert.equal(direct.passRate, threaded.passRate);
    assert.deepEqual(threaded.failures, direct.failures);
    const store = openResultsStore(join(directory, 'thread.db'));
    assert.deepEqual(store.countEpisodes(threaded.runId), { scored: 2048, 'infrastructure-error': 0, cancelled: 0 });
    assert.equal(store.getRun(threaded.runId).status, 'finished');
    store.close();
  });

  test('an agent\'s run writes through the store it was handed (serve acknowledges answers by watching it), however long', async () => {
    const funcgen = getSuite('funcgen');
    const params = resolveKnobs(funcgen.id, funcgen.knobs, { core: '3', depth: '2', connected: '1', disconnected: '1' });
    const funcgenTasks = await generateTasks(funcgen, { seed: 6, count: 64, params, validate: false });
    const store = openResultsStore(join(temporaryDirectory(), 'served.db'));
    let written = 0;
    // As serve's episode-commits.ts watches its store: a Proxy whose saveEpisodes counts what is written.
    const watched = new Proxy(store, {
      get(target, property) {
        if (property === 'saveEpisodes') return (episodes: Parameters<ResultsStore['saveEpisodes']>[0]) => { written += episodes.length; return target.saveEpisodes(episodes); };
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const agent = resolveModelSource(funcgen, 'builtin/planner', {});
    const summary = await runEvaluation({ suite: funcgen, tasks: funcgenTasks, trials: 32, agent, modelRef: agent.ref, seed: 6, params, concurrency: 4, store: watched });
    assert.equal(summary.episodes, 2048);
    assert.equal(written, 2048, 'every episode was written through the watched store');
    store.close();
  });

  test('a thread held up by another process\'s write lock makes the run wait (untilRoom) instead of piling up rows a kill would lose', async () => {
    const path = join(temporaryDirectory(), 'locked.db');
    const store = openResultsStore(path);
    store.createRun(sampleRun('run-l'), tasks);
    const Database = (await import('better-sqlite3')).default;
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    const writer = startEpisodeWriter(store, { maxBatch: 50, maxDelayMs: 5 });
    let room: Promise<void> | undefined;
    let added = 0;
    for (; added < 1000 && room === undefined; added += 1) {
      writer.add(sampleEpisode('run-l', tasks[added % 4].id, Math.floor(added / 4)));
      room = writer.untilRoom();
    }
    assert.equal(added, 200, 'the run waits once four batches are unwritten');
    assert.equal(writer.batchesHandedOver(), 4);
    let caughtUp = false;
    void room?.then(() => { caughtUp = true; });
    // The other episodes in flight end while the run waits (a high --concurrency): each adds its row and asks for room.
    for (; added < 300; added += 1) {
      writer.add(sampleEpisode('run-l', tasks[added % 4].id, Math.floor(added / 4)));
      assert.notEqual(writer.untilRoom(), undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(caughtUp, false, 'no room while the lock is held');
    other.exec('COMMIT');
    await room;
    await writer.close();
    // Their 100 rows went in batches of 50, not one transaction each (they were handed over one by one).
    assert.equal(writer.batchesHandedOver(), 6);
    assert.equal(store.countEpisodes('run-l').scored, 300);
    other.close();
    store.close();
  });

  test('a run whose writes fail on the thread ends failed (not left running), with the database\'s error, and resumes', async () => {
    const funcgen = getSuite('funcgen');
    const params = resolveKnobs(funcgen.id, funcgen.knobs, { core: '3', depth: '2', connected: '1', disconnected: '1' });
    const funcgenTasks = await generateTasks(funcgen, { seed: 8, count: 64, params, validate: false });
    const path = join(temporaryDirectory(), 'refusing.db');
    const store = openResultsStore(path);
    // The database refuses one episode's row, as a full disk would refuse a write, on the writer thread's connection.
    const Database = (await import('better-sqlite3')).default;
    const other = new Database(path);
    other.exec("CREATE TRIGGER refuse_one BEFORE INSERT ON episodes WHEN NEW.trial = 20 AND NEW.task_id LIKE '%/3' BEGIN SELECT RAISE(ABORT, 'the disk says no'); END");
    await assert.rejects(
      runEvaluation({ suite: funcgen, tasks: funcgenTasks, trials: 32, modelRef: 'builtin/planner', seed: 8, params, concurrency: 4, store }),
      /the disk says no/,
    );
    const [run] = store.listRuns();
    assert.equal(run.status, 'failed');
    other.exec('DROP TRIGGER refuse_one');
    other.close();
    const { resumeEvaluation } = await import('../../src/runner/run-evaluation.ts');
    const resumed = await resumeEvaluation({ runId: run.id, store });
    assert.equal(resumed.episodes, 2048);
    assert.equal(store.getRun(run.id).status, 'finished');
    store.close();
  });

  test('a database deleted before the thread opens it is not made again, empty: the run fails naming it', async () => {
    const { rmSync } = await import('node:fs');
    const path = join(temporaryDirectory(), 'gone.db');
    const store = openResultsStore(path);
    store.createRun(sampleRun('run-g'), tasks);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    const writer = startEpisodeWriter(store, { maxBatch: 1, maxDelayMs: 5 });
    writer.add(sampleEpisode('run-g', tasks[0].id, 0));
    await assert.rejects(writer.close(), (error: Error & { code?: string }) => error.code === 'store.invalid' && /deleted or moved while the run was starting/.test(error.message));
    const { existsSync } = await import('node:fs');
    assert.equal(existsSync(path), false);
    store.close();
  });
});

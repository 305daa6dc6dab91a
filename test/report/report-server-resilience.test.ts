/**
 * The viewer under load and under change: identical report requests share one build, a build nobody waits for any
 * more is dropped, a database file replaced under the viewer is read again (a missing one is a JSON error), and a
 * report reads one snapshot, so a run deleted by another process mid-build is reported as it was, never a 500.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { startReportServer } from '../../src/report/report-server.ts';
import type { ReportServer } from '../../src/report/report-server.ts';
import { buildReport, openReportSnapshot } from '../../src/report/report-jobs.ts';
import { startReportThreads } from '../../src/report/report-threads.ts';

let folder = '';
/** Two runs (oracle, random) of the same six tasks. */
let twoRunsPath = '';
let oracleRunId = '';
let randomRunId = '';
/** One run each, other seeds: what replaces the file under the viewer. */
let otherPath = '';
let otherRunId = '';
let thirdPath = '';
let thirdRunId = '';

before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolforge-view-resilience-'));
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, {});
  const run = async (dbPath: string, seed: number, modelRef: string) => {
    const tasks = await generateTasks(suite, { seed, count: 6, params });
    return (await runEvaluation({ suite, tasks, modelRef, seed, params, dbPath })).runId;
  };
  twoRunsPath = join(folder, 'two-runs.db');
  oracleRunId = await run(twoRunsPath, 2, 'builtin/oracle');
  randomRunId = await run(twoRunsPath, 2, 'builtin/random');
  otherPath = join(folder, 'other.db');
  otherRunId = await run(otherPath, 3, 'builtin/random');
  thirdPath = join(folder, 'third.db');
  thirdRunId = await run(thirdPath, 4, 'builtin/oracle');
});

/** A fresh copy of a database (its writers are closed, so the file holds every row), for one test to change. */
function copyOf(path: string, name: string): string {
  const copy = join(mkdtempSync(join(folder, 'copy-')), name);
  copyFileSync(path, copy);
  return copy;
}

const get = async (server: ReportServer, path: string, init: RequestInit = {}) => {
  const response = await fetch(new URL(path, server.url), init);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};

/** Waits for what the server counts (a bound, not a timing assertion: the condition is reached in milliseconds). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A gate builds wait at (beforeBuild) until the test opens it, or until their build is abandoned. */
function buildGate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  const signals: AbortSignal[] = [];
  const beforeBuild = async (_job: unknown, signal: AbortSignal): Promise<void> => {
    signals.push(signal);
    await new Promise<void>((resolve) => {
      void opened.then(resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  };
  return { open, signals, beforeBuild };
}

test('twenty identical /report requests share one build, and other pages are served while it runs', async () => {
  const gate = buildGate();
  const server = await startReportServer({ dbPath: twoRunsPath, beforeBuild: gate.beforeBuild });
  try {
    const reports = Array.from({ length: 20 }, () => get(server, '/report'));
    await until(() => server.reportBuilds?.().waiting === 20, 'the 20 requests to wait on a build');
    // The index is answered while the report is being built: a build does not hold the other requests up.
    assert.equal((await get(server, '/')).status, 200);
    assert.deepEqual(server.reportBuilds(), { started: 1, finished: 0, abandoned: 0, waiting: 20 });
    gate.open();
    const answers = await Promise.all(reports);
    assert.ok(answers.every((answer) => answer.status === 200 && answer.text === answers[0].text), 'every client gets the one report');
    assert.ok(answers[0].text.includes(oracleRunId) && answers[0].text.includes(randomRunId));
    assert.deepEqual(server.reportBuilds(), { started: 1, finished: 1, abandoned: 0, waiting: 0 });
    // Other reports are other builds: a run's report, and the JSON of every run.
    assert.equal((await get(server, `/runs/${oracleRunId}/report`)).status, 200);
    const runs = await get(server, '/api/runs');
    assert.deepEqual((JSON.parse(runs.text) as { runId: string }[]).map((run) => run.runId), [oracleRunId, randomRunId]);
    assert.equal(server.reportBuilds().started, 3);
  } finally {
    gate.open();
    await server.close();
  }
});

test('a build whose clients have all gone is dropped; a build with one client left goes on for it', async () => {
  const gate = buildGate();
  const server = await startReportServer({ dbPath: twoRunsPath, beforeBuild: gate.beforeBuild });
  try {
    const clients = Array.from({ length: 3 }, () => new AbortController());
    const gone = clients.map((client) => get(server, '/report', { signal: client.signal }).catch((error: Error) => error.name));
    await until(() => server.reportBuilds?.().waiting === 3, 'the 3 requests to wait on a build');
    for (const client of clients) client.abort();
    assert.deepEqual(await Promise.all(gone), ['AbortError', 'AbortError', 'AbortError']);
    await until(() => server.reportBuilds().abandoned === 1, 'the build to be abandoned');
    assert.equal(gate.signals[0].aborted, true, 'the build is told to stop');
    gate.open();
    assert.deepEqual(server.reportBuilds(), { started: 1, finished: 0, abandoned: 1, waiting: 0 });

    // One of two clients leaves: the build goes on and the other gets its report.
    const held = buildGate();
    const second = await startReportServer({ dbPath: twoRunsPath, beforeBuild: held.beforeBuild });
    try {
      const leaving = new AbortController();
      const left = get(second, '/api/runs', { signal: leaving.signal }).catch((error: Error) => error.name);
      const staying = get(second, '/api/runs');
      await until(() => second.reportBuilds().waiting === 2, 'the 2 requests to wait on a build');
      leaving.abort();
      assert.equal(await left, 'AbortError');
      await until(() => second.reportBuilds().waiting === 1, 'the client that left to be let go');
      held.open();
      assert.equal((await staying).status, 200);
      assert.equal(held.signals[0].aborted, false);
      assert.deepEqual(second.reportBuilds(), { started: 1, finished: 1, abandoned: 0, waiting: 0 });
    } finally {
      held.open();
      await second.close();
    }
    // A request after an abandoned build starts a build of its own.
    assert.equal((await get(server, '/report')).status, 200);
    assert.deepEqual(server.reportBuilds(), { started: 2, finished: 1, abandoned: 1, waiting: 0 });
  } finally {
    gate.open();
    await server.close();
  }
});

test('a build aborted in its thread ends the thread; the next build starts another', async () => {
  const threads = startReportThreads(twoRunsPath);
  try {
    const aborted = new AbortController();
    const building = threads.build({ kind: 'all-runs-html' }, aborted.signal);
    aborted.abort();
    await assert.rejects(building, { name: 'AbortError' });
    await until(() => threads.threadCount() === 0, 'the aborted build\'s thread to end');
    const report = await threads.build({ kind: 'all-runs-json' }, new AbortController().signal);
    assert.equal(report.contentType, 'application/json');
    assert.deepEqual((JSON.parse(report.body) as { runId: string }[]).map((run) => run.runId), [oracleRunId, randomRunId]);
  } finally {
    await threads.close();
  }
});

test('a database file replaced under the viewer (cp, mv) is read again; a missing one is a JSON error with a fix', async () => {
  const path = copyOf(twoRunsPath, 'results.db');
  const server = await startReportServer({ dbPath: path });
  try {
    const runIdsOf = async (page: string) => {
      const response = await get(server, page);
      assert.equal(response.status, 200, `${page}: ${response.text}`);
      return [oracleRunId, randomRunId, otherRunId, thirdRunId].filter((runId) => response.text.includes(runId));
    };
    assert.deepEqual(await runIdsOf('/'), [oracleRunId, randomRunId]);
    copyFileSync(otherPath, path);
    assert.deepEqual(await runIdsOf('/'), [otherRunId], 'cp over the file');
    assert.deepEqual(await runIdsOf('/api/runs'), [otherRunId]);
    assert.deepEqual(await runIdsOf('/report'), [otherRunId]);
    renameSync(copyOf(thirdPath, 'new.db'), path);
    assert.deepEqual(await runIdsOf('/'), [thirdRunId], 'mv onto the path');
    assert.deepEqual(await runIdsOf('/report'), [thirdRunId]);

    rmSync(path);
    for (const page of ['/', '/report', `/api/runs/${thirdRunId}`]) {
      const missing = await get(server, page);
      assert.equal(missing.status, 503, page);
      assert.equal(missing.type, 'application/json', page);
      const { error } = JSON.parse(missing.text) as { error: { code: string; message: string; fix: string } };
      assert.equal(error.code, 'input.unreadable', page);
      assert.match(error.message, new RegExp(`results database ${path.replaceAll('\\', '\\\\')} is no longer there`), page);
      assert.match(error.fix, /put a results database back at/, page);
    }
    copyFileSync(twoRunsPath, path);
    assert.deepEqual(await runIdsOf('/'), [oracleRunId, randomRunId], 'the file put back is read');
  } finally {
    await server.close();
  }
});

/** `store`, whose `at`-th call first deletes `runId` through another connection: another process's `toolforge delete`. */
function deletingMidBuild(store: ResultsStore, writer: ResultsStore, runId: string, at: number): { store: ResultsStore; calls(): number } {
  let calls = 0;
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...parameters: unknown[]) => {
        calls += 1;
        if (calls === at) writer.deleteRun(runId);
        return (value as (...each: unknown[]) => unknown).apply(target, parameters);
      };
    },
  });
  return { store: proxy, calls: () => calls };
}

test('an all-runs report reads one snapshot: a run deleted by another process mid-build is reported whole, never an error', async () => {
  const failures: string[] = [];
  let buildsWithDeletion = 0;
  // Every third call of the build (from the second: the first read takes the snapshot) is enough to land in each step.
  for (let at = 2; ; at += 3) {
    for (const victim of [oracleRunId, randomRunId]) {
      // What the viewer read through before: each statement its own snapshot. The deletion breaks the build (it was a
      // 500 with more episodes), which shows it lands mid-build.
      const plainPath = copyOf(twoRunsPath, 'plain.db');
      const plainWriter = openResultsStore(plainPath);
      const plain = openResultsStore(plainPath, { readOnly: true });
      try {
        buildReport(deletingMidBuild(plain, plainWriter, victim, at).store, { kind: 'all-runs-html' });
      } catch (error) {
        failures.push((error as { code?: string }).code ?? String(error));
      } finally {
        plain.close();
        plainWriter.close();
      }
      const path = copyOf(twoRunsPath, 'snapshot.db');
      const writer = openResultsStore(path);
      const snapshot = openReportSnapshot(path);
      try {
        const deleting = deletingMidBuild(snapshot.store, writer, victim, at);
        const report = buildReport(deleting.store, { kind: 'all-runs-html' });
        if (deleting.calls() < at) return finish();
        buildsWithDeletion += 1;
        assert.ok(report.body.includes(oracleRunId) && report.body.includes(randomRunId), `deleted at call ${at}: both runs are reported`);
        assert.equal(writer.findRun(victim), undefined, 'the run is gone from the database itself');
      } finally {
        snapshot.close();
        writer.close();
      }
    }
  }
  function finish(): void {
    assert.ok(buildsWithDeletion > 10, 'the deletion landed at many points of the build');
    assert.ok(failures.includes('store.unknown-run'), `without a snapshot the same deletion breaks the build (${failures.join(', ')})`);
  }
});

test('a run deleted before its report is built is left out of /report (200), and its own report is a 404', async () => {
  const path = copyOf(twoRunsPath, 'results.db');
  const writer = openResultsStore(path);
  let deleteFirst = true;
  const server = await startReportServer({
    dbPath: path,
    beforeBuild: async () => {
      if (deleteFirst) writer.deleteRun(randomRunId);
      deleteFirst = false;
    },
  });
  try {
    const report = await get(server, '/report');
    assert.equal(report.status, 200, report.text);
    assert.ok(report.text.includes(oracleRunId) && !report.text.includes(randomRunId));
    assert.equal((await get(server, `/runs/${randomRunId}/report`)).status, 404);
  } finally {
    await server.close();
    writer.close();
  }
});

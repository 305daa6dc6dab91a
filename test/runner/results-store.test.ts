import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../../src/core/errors.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { migrationStatements, migrations } from '../../src/store/store-migrations.ts';
import { createRunId, unusedRunId } from '../../src/store/run-id.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { sampleEpisode, sampleRun, temporaryDirectory } from './test-helpers.ts';

const tasks = await createFakeSuite().generate({ seed: 7, count: 2, params: {} });

describe('results store', () => {
  test('creates the parent folder, uses WAL, and round-trips a run, its tasks and episodes', () => {
    const path = join(temporaryDirectory(), 'nested', 'deeper', 'results.db');
    const store = openResultsStore(path);
    store.createRun(sampleRun('run-a'), tasks);
    store.saveEpisode(sampleEpisode('run-a', tasks[1].id, 0));
    store.saveEpisode(sampleEpisode('run-a', tasks[0].id, 1));
    store.saveEpisode(sampleEpisode('run-a', tasks[0].id, 0, { score: { value: 0, passed: false, reason: 'no', failure: 'result.wrong' } }));
    store.close();

    const reopened = openResultsStore(path);
    const run = reopened.getRun('run-a');
    assert.equal(run.status, 'running');
    assert.equal(run.taskCount, 2);
    assert.deepEqual(run.settings, { temperature: 0 });
    assert.deepEqual(run.provenance.cliArgs, ['run', 'fake-sum']);
    assert.deepEqual(reopened.listTasks('run-a'), tasks);
    const episodes = reopened.listEpisodes('run-a');
    // Task order, then trial.
    assert.deepEqual(episodes.map((episode) => [episode.taskId, episode.trial]), [[tasks[0].id, 0], [tasks[0].id, 1], [tasks[1].id, 0]]);
    assert.deepEqual(episodes[1], sampleEpisode('run-a', tasks[0].id, 1));
    assert.deepEqual(reopened.countEpisodes('run-a'), { scored: 3, 'infrastructure-error': 0, cancelled: 0 });
    assert.deepEqual(reopened.listEpisodeKeys('run-a'), [
      { taskId: tasks[0].id, trial: 0, status: 'scored' }, { taskId: tasks[0].id, trial: 1, status: 'scored' }, { taskId: tasks[1].id, trial: 0, status: 'scored' },
    ]);
    reopened.close();

    const raw = new Database(path, { readonly: true });
    assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
    assert.deepEqual(raw.prepare('SELECT version FROM schema_version').all(), [{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }, { version: 8 }, { version: 9 }]);
    assert.deepEqual(raw.prepare('SELECT passed, value, failure FROM episodes ORDER BY task_id, trial').all(),
      [{ passed: 0, value: 0, failure: 'result.wrong' }, { passed: 1, value: 1, failure: null }, { passed: 1, value: 1, failure: null }]);
    raw.close();
  });

  test('an infrastructure-error row is replaced by its scored retry, but a scored row is never overwritten', () => {
    const store = openResultsStore(':memory:');
    store.createRun(sampleRun('run-b'), tasks);
    const infrastructure = sampleEpisode('run-b', tasks[0].id, 0, {
      status: 'infrastructure-error', termination: null, messages: [], score: null, attempts: 5, error: { code: 'provider.server-error', message: 'HTTP 503' },
    });
    assert.equal(store.saveEpisode(infrastructure), true);
    assert.deepEqual(store.countEpisodes('run-b'), { scored: 0, 'infrastructure-error': 1, cancelled: 0 });
    assert.equal(store.saveEpisode(sampleEpisode('run-b', tasks[0].id, 0, { attempts: 2 })), true);
    assert.equal(store.saveEpisode(sampleEpisode('run-b', tasks[0].id, 0, { score: { value: 0, passed: false, reason: 'late duplicate' } })), false);
    const [only] = store.listEpisodes('run-b');
    assert.equal(only.status, 'scored');
    assert.equal(only.attempts, 2);
    assert.equal(only.score?.passed, true);
    assert.equal(store.listEpisodes('run-b').length, 1);
    store.close();
  });

  test('lists runs newest first, filters by suite, finds the latest, and names recent runs for an unknown id', () => {
    const store = openResultsStore(':memory:');
    store.createRun(sampleRun('old', { createdAt: '2026-01-01T00:00:00.000Z' }), tasks);
    store.createRun(sampleRun('new', { createdAt: '2026-01-03T00:00:00.000Z' }), tasks);
    store.createRun(sampleRun('other', { createdAt: '2026-01-02T00:00:00.000Z', suite: { id: 'other-suite', version: '1' } }), []);
    assert.deepEqual(store.listRuns().map((run) => run.id), ['new', 'other', 'old']);
    assert.deepEqual(store.listRuns({ suiteId: 'fake-sum' }).map((run) => run.id), ['new', 'old']);
    assert.equal(store.latestRun()?.id, 'new');
    assert.equal(store.latestRun({ suiteId: 'other-suite' })?.id, 'other');
    store.setRunStatus('old', 'finished');
    assert.equal(store.getRun('old').status, 'finished');
    assert.throws(() => store.getRun('missing'), (error: unknown) =>
      error instanceof ConfigError && error.code === 'store.unknown-run' && /missing/.test(error.message) && /new, other, old/.test(error.message));
    store.deleteRun('other');
    assert.equal(store.findRun('other'), undefined);
    store.close();
  });

  test('export then import into another database gives the same run, byte for byte', () => {
    const directory = temporaryDirectory();
    const source = openResultsStore(join(directory, 'a.db'));
    source.createRun(sampleRun('run-c'), tasks);
    source.saveEpisode(sampleEpisode('run-c', tasks[0].id, 0));
    source.saveEpisode(sampleEpisode('run-c', tasks[1].id, 1, { status: 'infrastructure-error', termination: null, score: null, messages: [], error: { code: 'internal', message: 'boom' } }));
    source.setRunStatus('run-c', 'finished');
    const exported = source.exportRun('run-c');
    const lines = exported.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string });
    assert.deepEqual(lines.map((line) => line.type), ['run', 'task', 'task', 'episode', 'episode', 'end']);

    const target = openResultsStore(join(directory, 'b.db'));
    const imported = target.importRun(exported, 'run-c.jsonl');
    assert.deepEqual(imported, source.getRun('run-c'));
    assert.deepEqual(target.listEpisodes('run-c'), source.listEpisodes('run-c'));
    assert.equal(target.exportRun('run-c'), exported);

    assert.throws(() => target.importRun(exported, 'run-c.jsonl'), (error: unknown) =>
      error instanceof ConfigError && error.code === 'input.invalid' && /already in/.test(error.message) && /--db/.test(error.message));
    assert.equal(target.listEpisodes('run-c').length, 2);
    source.close();
    target.close();
  });

  test('import names the line and field of a bad record and writes nothing', () => {
    const store = openResultsStore(':memory:');
    store.createRun(sampleRun('run-d'), tasks);
    store.saveEpisode(sampleEpisode('run-d', tasks[0].id, 0));
    const exported = store.exportRun('run-d');
    store.deleteRun('run-d');
    const lines = exported.trimEnd().split('\n');
    const badEpisode = JSON.parse(lines[3]) as { episode: { score: { value: number } } };
    badEpisode.episode.score.value = 2;
    const cases: [string, RegExp][] = [
      [[lines[0], lines[1], lines[2], JSON.stringify(badEpisode)].join('\n'), /bad\.jsonl:4: field 'episode\.score\.value'/],
      [[lines[0], '{not json', lines[2]].join('\n'), /bad\.jsonl:2: not valid JSON/],
      [[lines[1], lines[0]].join('\n'), /bad\.jsonl:1: a task line before the run header/],
      [[lines[0], lines[1]].join('\n'), /header says 2 task\(s\) but the file holds 1/],
      [[lines[0], lines[1], lines[2], lines[3], lines[3]].join('\n'), /bad\.jsonl:5: episode .* appears twice/],
      ['', /no run header/],
    ];
    for (const [text, pattern] of cases) {
      assert.throws(() => store.importRun(text, 'bad.jsonl'), (error: unknown) => error instanceof ConfigError && error.code === 'input.invalid' && pattern.test(error.message), String(pattern));
    }
    assert.deepEqual(store.listRuns(), []);
    store.close();
  });

  test('a corrupt file, a foreign database and a directory are refused with store.invalid naming the fix', () => {
    const directory = temporaryDirectory();
    const corrupt = join(directory, 'corrupt.db');
    writeFileSync(corrupt, 'this is not a database, just text that is long enough to have a header'.repeat(20));
    const foreign = join(directory, 'foreign.db');
    const other = new Database(foreign);
    other.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
    other.close();
    for (const path of [corrupt, foreign, directory]) {
      assert.throws(() => openResultsStore(path), (error: unknown) =>
        error instanceof ConfigError && error.code === 'store.invalid' && error.message.includes(path) && /--db <other path>/.test(error.message), path);
    }
    // The foreign database was left untouched.
    const check = new Database(foreign, { readonly: true });
    assert.deepEqual(check.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all(), [{ name: 'customers' }]);
    check.close();
    assert.equal(existsSync(join(directory, 'corrupt.db')), true);
  });

  test('retries per cause round-trip per episode, are summed per run, survive export/import, and a schema-1 database still opens', () => {
    // A database written before retries were stored: schema 1 only, one episode.
    const path = join(temporaryDirectory(), 'old.db');
    const old = new Database(path);
    old.exec('CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)');
    for (const statement of migrationStatements(migrations[0], 'sqlite')) old.exec(statement);
    old.prepare('INSERT INTO schema_version VALUES (1, ?)').run('2026-01-01T00:00:00.000Z');
    old.close();
    const upgraded = openResultsStore(path);
    upgraded.createRun(sampleRun('run-old'), tasks);
    const legacy = sampleEpisode('run-old', tasks[0].id, 0);
    const raw = new Database(path);
    raw.prepare(`INSERT INTO episodes (run_id, task_id, trial, model, mode, status, termination, passed, value, failure, score, messages,
      input_tokens, output_tokens, attempts, started_at, ended_at, duration_ms, error) VALUES (?, ?, 0, 'builtin/oracle', 'calls', 'scored',
      'final-answer', 1, 1, NULL, ?, ?, 10, 2, 1, ?, ?, 1000, NULL)`)
      .run('run-old', tasks[0].id, JSON.stringify(legacy.score), JSON.stringify(legacy.messages), legacy.startedAt, legacy.endedAt);
    raw.close();
    assert.deepEqual(upgraded.listEpisodes('run-old'), [legacy]);
    assert.deepEqual(upgraded.countRetries('run-old'), {});

    upgraded.saveEpisode(sampleEpisode('run-old', tasks[0].id, 1, { retries: { 'provider.rate-limited': 3, 'provider.timeout': 1 } }));
    upgraded.saveEpisode(sampleEpisode('run-old', tasks[1].id, 0, { retries: { 'provider.rate-limited': 2 } }));
    assert.deepEqual(upgraded.listEpisodes('run-old').map((episode) => episode.retries), [undefined, { 'provider.rate-limited': 3, 'provider.timeout': 1 }, { 'provider.rate-limited': 2 }]);
    assert.deepEqual(upgraded.countRetries('run-old'), { 'provider.rate-limited': 5, 'provider.timeout': 1 });
    // An infrastructure error, then its resumed run: the retries of both are kept.
    upgraded.saveEpisode(sampleEpisode('run-old', tasks[1].id, 1, { status: 'infrastructure-error', score: null, retries: { 'provider.timeout': 7 } }));
    upgraded.saveEpisode(sampleEpisode('run-old', tasks[1].id, 1, { retries: { 'provider.rate-limited': 1, 'provider.connection': 1 } }));
    assert.deepEqual(upgraded.listEpisodes('run-old')[3].retries, { 'provider.connection': 1, 'provider.rate-limited': 1, 'provider.timeout': 7 });
    upgraded.saveEpisode(sampleEpisode('run-old', tasks[1].id, 1, { retries: { 'provider.timeout': 100 } }));
    assert.deepEqual(upgraded.countRetries('run-old'), { 'provider.connection': 1, 'provider.rate-limited': 6, 'provider.timeout': 8 });
    const exported = upgraded.exportRun('run-old');
    upgraded.close();
    const other = openResultsStore(':memory:');
    other.importRun(exported);
    assert.deepEqual(other.countRetries('run-old'), { 'provider.connection': 1, 'provider.rate-limited': 6, 'provider.timeout': 8 });
    assert.equal(other.exportRun('run-old'), exported);
    other.close();
  });

  test('a schema-6 database gets its tasks\' phrasing and first mode filled in, and taskFacts counts them as before', () => {
    const path = join(temporaryDirectory(), 'schema-6.db');
    const old = new Database(path);
    old.exec('CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)');
    for (const migration of migrations.filter((candidate) => candidate.version <= 6)) {
      for (const statement of migrationStatements(migration, 'sqlite')) old.exec(statement);
      old.prepare('INSERT INTO schema_version VALUES (?, ?)').run(migration.version, '2026-01-01T00:00:00.000Z');
    }
    old.prepare(`INSERT INTO runs (id, created_at, suite_id, suite_version, model, base_url, mode, trials, concurrency, seed, params, settings, provenance, status)
      VALUES ('run-6', '2026-01-01T00:00:00.000Z', 'fake-sum', '1', 'builtin/oracle', NULL, NULL, 1, 1, 7, '{}', '{}', '{}', 'finished')`).run();
    // Three tasks: phrased by a model, a template fallback, and unphrased with another first mode.
    const stored = [
      { ...tasks[0], id: 'a', stats: { ...tasks[0].stats, phrasing: 'model' } },
      { ...tasks[0], id: 'b', stats: { ...tasks[0].stats, phrasing: 'template-fallback' } },
      { ...tasks[1], id: 'c', modes: ['sequence' as const, ...tasks[1].modes] },
    ];
    stored.forEach((task, ordinal) => old.prepare('INSERT INTO run_tasks (run_id, ordinal, task_id, task) VALUES (?, ?, ?, ?)').run('run-6', ordinal, task.id, JSON.stringify(task)));
    old.close();
    const upgraded = openResultsStore(path);
    const facts = upgraded.taskFacts('run-6');
    assert.equal(facts.count, 3);
    assert.equal(facts.phrased, 2);
    assert.equal(facts.phrasingFallbacks, 1);
    assert.deepEqual([...facts.firstModes].sort(), [tasks[0].modes[0], 'sequence'].sort());
    // A run written after the upgrade gets the columns from its tasks.
    upgraded.createRun(sampleRun('run-7'), stored);
    assert.deepEqual(upgraded.taskFacts('run-7'), { ...facts, firstModes: upgraded.taskFacts('run-7').firstModes });
    assert.deepEqual([...upgraded.taskFacts('run-7').firstModes].sort(), [...facts.firstModes].sort());
    upgraded.close();
  });

  test('a database from a newer schema is refused rather than misread', () => {
    const path = join(temporaryDirectory(), 'newer.db');
    openResultsStore(path).close();
    const raw = new Database(path);
    raw.prepare('INSERT INTO schema_version (version, applied_at) VALUES (99, ?)').run('2030-01-01T00:00:00.000Z');
    raw.close();
    assert.throws(() => openResultsStore(path), (error: unknown) => error instanceof ConfigError && error.code === 'store.invalid' && /schema version 99/.test(error.message));
  });

  test('a schema-1 database is upgraded in place and its episodes read back with an empty trace', () => {
    const path = join(temporaryDirectory(), 'old.db');
    const raw = new Database(path);
    raw.exec('CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)');
    for (const statement of migrationStatements(migrations[0], 'sqlite')) raw.exec(statement);
    raw.prepare('INSERT INTO schema_version (version, applied_at) VALUES (1, ?)').run('2026-01-01T00:00:00.000Z');
    raw.close();
    const store = openResultsStore(path);
    store.createRun(sampleRun('run-old'), tasks);
    store.close();
    // An episode written as schema-1 code wrote it: no trace column value.
    const writer = new Database(path);
    writer.prepare(`INSERT INTO episodes (run_id, task_id, trial, model, mode, status, termination, passed, value, failure, score, messages,
      input_tokens, output_tokens, attempts, started_at, ended_at, duration_ms, error) VALUES ('run-old', ?, 0, 'builtin/oracle', 'calls',
      'scored', 'final-answer', 1, 1, NULL, '{"value":1,"passed":true,"reason":"ok"}', '[]', 1, 1, 1, 'a', 'b', 5, NULL)`).run(tasks[0].id);
    writer.close();
    const reopened = openResultsStore(path);
    const [episode] = reopened.listEpisodes('run-old');
    assert.deepEqual({ finalState: episode.finalState, calls: episode.calls, warnings: episode.warnings, raw: episode.raw },
      { finalState: null, calls: [], warnings: [], raw: undefined });
    assert.equal(episode.score?.passed, true);
    reopened.saveEpisode(sampleEpisode('run-old', tasks[1].id, 0, { finalState: { total: 3 }, warnings: [{ turn: 1, type: 'other', message: 'w' }] }));
    const saved = reopened.listEpisodes('run-old').find((candidate) => candidate.taskId === tasks[1].id);
    assert.deepEqual(saved?.finalState, { total: 3 });
    assert.deepEqual(saved?.warnings, [{ turn: 1, type: 'other', message: 'w' }]);
    reopened.close();
  });

  test('run ids are readable: suite, UTC date and time, four hex digits', () => {
    assert.equal(createRunId('fake-sum', new Date('2026-03-04T05:06:07Z'), 'a1b2'), 'fake-sum-20260304-050607-a1b2');
    assert.match(createRunId('nestful'), /^nestful-\d{8}-\d{6}-[0-9a-f]{4}$/);
  });

  test('a new run never takes the id of a run started in the same second with the same four digits: they are drawn again', () => {
    const store = openResultsStore(':memory:');
    const second = new Date('2026-03-04T05:06:07Z');
    store.beginRun(sampleRun('fake-sum-20260304-050607-a1b2'));
    const drawn = ['a1b2', 'a1b2', 'c3d4'];
    assert.equal(unusedRunId(store, 'fake-sum', () => second, () => drawn.shift() as string), 'fake-sum-20260304-050607-c3d4');
    assert.deepEqual(drawn, []);
    store.close();
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Message } from '../../src/core/message.ts';
import type { Task } from '../../src/core/task.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { migrationStatements, migrations } from '../../src/store/store-migrations.ts';
import { compressionThresholdBytes } from '../../src/store/transcript-encoding.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { liveHeapBytes, sampleEpisode, sampleRun, saveLargeRun, temporaryDirectory } from './test-helpers.ts';

const baseTasks = await createFakeSuite().generate({ seed: 7, count: 4, params: {} });
// Knob values per task, so the knob filter has something to tell apart.
const tasks: Task[] = baseTasks.map((task, index) => ({ ...task, params: { ...task.params, size: index < 2 ? 3 : 5, label: index === 3 ? 'wide' : 'narrow' } }));

/** A transcript far above the compression threshold: a long tool-heavy conversation. */
function longTranscript(): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Add every pair.' }];
  for (let index = 0; index < 60; index += 1) {
    messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `call_${index}`, name: 'add', argumentsText: `{"a":${index},"b":${index + 1}}`, arguments: { a: index, b: index + 1 } }] });
    messages.push({ role: 'tool', toolCallId: `call_${index}`, toolName: 'add', result: { ok: true, output: 2 * index + 1 } });
  }
  messages.push({ role: 'assistant', content: 'done', toolCalls: [] });
  return messages;
}

describe('store at scale', () => {
  test('a long transcript is stored gzip-compressed, reads back exactly, and exports byte-identical JSONL', () => {
    const directory = temporaryDirectory();
    const store = openResultsStore(join(directory, 'a.db'));
    store.createRun(sampleRun('run-z'), tasks);
    const long = sampleEpisode('run-z', tasks[0].id, 0, { messages: longTranscript() });
    const short = sampleEpisode('run-z', tasks[1].id, 0);
    store.saveEpisode(long);
    store.saveEpisode(short);
    const jsonLength = Buffer.byteLength(JSON.stringify(long.messages));
    assert.ok(jsonLength > compressionThresholdBytes);
    const raw = new Database(join(directory, 'a.db'), { readonly: true });
    const rows = raw.prepare('SELECT task_id, messages, messages_encoding FROM episodes ORDER BY task_id').all() as { task_id: string; messages: unknown; messages_encoding: string }[];
    raw.close();
    const longRow = rows.find((row) => row.task_id === tasks[0].id)!;
    const shortRow = rows.find((row) => row.task_id === tasks[1].id)!;
    assert.equal(longRow.messages_encoding, 'gzip');
    assert.ok(Buffer.isBuffer(longRow.messages) && longRow.messages.length * 4 < jsonLength, 'compressed at least 4x');
    assert.deepEqual([shortRow.messages_encoding, typeof shortRow.messages], ['json', 'string']);
    assert.deepEqual(store.listTaskEpisodes('run-z', tasks[0].id), [long]);
    assert.deepEqual(store.findEpisode('run-z', tasks[0].id, 0), long);
    const exported = store.exportRun('run-z');
    assert.ok(exported.includes('"argumentsText":"{\\"a\\":59,\\"b\\":60}"'), 'the export holds the decoded transcript');
    const target = openResultsStore(join(directory, 'b.db'));
    target.importRun(exported);
    assert.equal(target.exportRun('run-z'), exported);
    store.close();
    target.close();
  });

  test('a version-1 database (JSON text transcripts) is upgraded on open and stays readable', () => {
    const path = join(temporaryDirectory(), 'old.db');
    const old = new Database(path);
    old.exec('CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)');
    for (const statement of migrationStatements(migrations[0], 'sqlite')) old.exec(statement);
    old.prepare('INSERT INTO schema_version VALUES (1, ?)').run('2026-01-01T00:00:00.000Z');
    const episode = sampleEpisode('run-old', tasks[0].id, 0, { messages: longTranscript() });
    old.prepare(`INSERT INTO runs (id, created_at, suite_id, suite_version, model, base_url, mode, trials, concurrency, seed, params, settings, provenance, status)
      VALUES ('run-old', '2026-01-01T00:00:00.000Z', 'fake-sum', '1', 'builtin/oracle', NULL, NULL, 1, 1, 7, '{}', '{}', ?, 'finished')`).run(JSON.stringify(sampleRun('run-old').provenance));
    old.prepare('INSERT INTO run_tasks VALUES (?, 0, ?, ?)').run('run-old', tasks[0].id, JSON.stringify(tasks[0]));
    old.prepare(`INSERT INTO episodes (run_id, task_id, trial, model, mode, status, termination, passed, value, failure, score, messages,
      input_tokens, output_tokens, attempts, started_at, ended_at, duration_ms, error) VALUES ('run-old', ?, 0, 'builtin/oracle', 'calls', 'scored',
      'final-answer', 1, 1, NULL, ?, ?, 10, 2, 1, ?, ?, 1000, NULL)`)
      .run(tasks[0].id, JSON.stringify(episode.score), JSON.stringify(episode.messages), episode.startedAt, episode.endedAt);
    old.close();

    const store = openResultsStore(path, { readOnly: true });
    assert.deepEqual(store.listEpisodes('run-old'), [episode]);
    assert.deepEqual(store.countOutcomes('run-old'), { scored: 1, passed: 1, infrastructureErrors: 0, cancelled: 0, failures: {} });
    store.close();
    const raw = new Database(path, { readonly: true });
    assert.deepEqual(raw.prepare('SELECT version FROM schema_version ORDER BY version').all(), migrations.map((migration) => ({ version: migration.version })));
    assert.equal((raw.prepare('SELECT messages_encoding FROM episodes').get() as { messages_encoding: string }).messages_encoding, 'json');
    raw.close();
  });

  test('SQL counts and paged, filtered episode queries', () => {
    const store = openResultsStore(':memory:');
    store.createRun(sampleRun('run-q'), tasks);
    const failed = (failure?: 'arguments.invalid') => ({ score: { value: 0, passed: false, reason: 'wrong', ...(failure ? { failure } : {}) } });
    store.saveEpisode(sampleEpisode('run-q', tasks[0].id, 0));
    store.saveEpisode(sampleEpisode('run-q', tasks[0].id, 1, failed('arguments.invalid')));
    store.saveEpisode(sampleEpisode('run-q', tasks[1].id, 0, failed()));
    store.saveEpisode(sampleEpisode('run-q', tasks[2].id, 0, { status: 'infrastructure-error', score: null, termination: null, error: { code: 'provider.server-error', message: '503' } }));
    store.saveEpisode(sampleEpisode('run-q', tasks[3].id, 0, failed('arguments.invalid')));
    store.saveEpisode(sampleEpisode('run-q', tasks[3].id, 1));

    assert.deepEqual(store.countOutcomes('run-q'), {
      scored: 5, passed: 2, infrastructureErrors: 1, cancelled: 0, failures: { 'arguments.invalid': 2, 'result.wrong': 1 },
    });
    const keys = (query: Parameters<typeof store.queryEpisodes>[1]) => {
      const page = store.queryEpisodes('run-q', query);
      return { total: page.total, keys: page.episodes.map((episode) => `${episode.taskId}#${episode.trial}`) };
    };
    const [a, b, c, d] = tasks.map((task) => task.id);
    assert.deepEqual(keys({}), { total: 6, keys: [`${a}#0`, `${a}#1`, `${b}#0`, `${c}#0`, `${d}#0`, `${d}#1`] });
    assert.deepEqual(keys({ limit: 2, offset: 1 }), { total: 6, keys: [`${a}#1`, `${b}#0`] });
    assert.deepEqual(keys({ outcome: 'failed' }), { total: 3, keys: [`${a}#1`, `${b}#0`, `${d}#0`] });
    assert.deepEqual(keys({ outcome: 'passed' }), { total: 2, keys: [`${a}#0`, `${d}#1`] });
    assert.deepEqual(keys({ failure: 'result.wrong' }), { total: 1, keys: [`${b}#0`] });
    assert.deepEqual(keys({ failure: 'arguments.invalid', limit: 1 }), { total: 2, keys: [`${a}#1`] });
    assert.deepEqual(keys({ status: 'infrastructure-error' }), { total: 1, keys: [`${c}#0`] });
    assert.deepEqual(keys({ task: d }), { total: 2, keys: [`${d}#0`, `${d}#1`] });
    assert.deepEqual(keys({ knobs: { size: '5' } }), { total: 3, keys: [`${c}#0`, `${d}#0`, `${d}#1`] });
    assert.deepEqual(keys({ knobs: { size: '5', label: 'wide' }, outcome: 'passed' }), { total: 1, keys: [`${d}#1`] });
    assert.deepEqual(keys({ search: b.toUpperCase() }), { total: 1, keys: [`${b}#0`] });
    assert.equal(keys({ search: 'no text like this' }).total, 0);
    assert.deepEqual(store.listMatchingTaskIds('run-q', { outcome: 'failed' }), [a, b, d]);
    assert.throws(() => store.queryEpisodes('run-q', { limit: 0 }), { code: 'input.invalid' });
    assert.throws(() => store.queryEpisodes('run-q', { knobs: { 'size) OR 1=1 --': '1' } }), { code: 'input.invalid' });
    assert.equal(store.listEpisodeOutcomes('run-q').length, 6);
    assert.ok(store.listEpisodeOutcomes('run-q').every((episode) => !('messages' in episode)));
    store.close();
  });
});

describe('memory does not grow with the run', () => {
  /** The largest growth of the live heap over `baseline` seen every 1,000 lines as they pass, in bytes. */
  function* sampled(lines: Iterable<string>, baseline: number, peak: { bytes: number; chars: number }): Generator<string> {
    let count = 0;
    for (const line of lines) {
      count += 1;
      peak.chars += line.length + 1;
      if (count % 1000 === 0) peak.bytes = Math.max(peak.bytes, liveHeapBytes() - baseline);
      yield line;
    }
  }
  const mb = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MB`;

  test('export and import go a page at a time: the live heap grows by a small part of the run, and the copy is the same run', async () => {
    // 3,000 episodes of ~8 KB: a 24 MB export (one whole-run read, or the export held as lines, grows the heap by all of it).
    const tasks = await createFakeSuite().generate({ seed: 9, count: 1500, params: {} });
    const directory = temporaryDirectory();
    const source = openResultsStore(join(directory, 'large.db'));
    saveLargeRun(source, sampleRun('run-big', { trials: 2 }), tasks, 8000);
    const exported = { bytes: 0, chars: 0 };
    for (const _line of sampled(source.iterateExportLines('run-big'), liveHeapBytes(), exported));
    assert.ok(exported.chars > 20 * 1_048_576, `the export is ${mb(exported.chars)}`);
    assert.ok(exported.bytes < exported.chars / 5, `exporting ${mb(exported.chars)} grew the live heap by ${mb(exported.bytes)}`);

    const target = openResultsStore(join(directory, 'copy.db'));
    const imported = { bytes: 0, chars: 0 };
    target.importRunLines(sampled(source.iterateExportLines('run-big'), liveHeapBytes(), imported), 'large.jsonl');
    assert.ok(imported.bytes < imported.chars / 5, `importing ${mb(imported.chars)} grew the live heap by ${mb(imported.bytes)}`);
    // The copy exports the same lines, compared a line at a time.
    const copied = target.iterateExportLines('run-big')[Symbol.iterator]();
    let lines = 0;
    for (const line of source.iterateExportLines('run-big')) {
      lines += 1;
      assert.equal(copied.next().value, line, `line ${lines}`);
    }
    assert.equal(copied.next().done, true);
    assert.equal(lines, 1 + 1500 + 3000 + 1);
    source.close();
    target.close();
  });
});

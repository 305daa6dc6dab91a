import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../src/core/errors.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { temporaryDirectory } from '../runner/test-helpers.ts';

test('a URL of a database ToolForge does not speak is refused by the library, naming the fix, and nothing is created', () => {
  const directory = temporaryDirectory();
  for (const [location, example] of [
    [`mysql://${directory}/results`, 'results.db'],
    [`sqlite://${directory}/results.db`, `${directory}/results.db`],
    [`file://${directory}/results.db`, `${directory}/results.db`],
    ['https://example.com/results.db', 'results.db'],
  ] as const) {
    assert.throws(() => openResultsStore(location), (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.equal(error.code, 'config.invalid');
      assert.match(error.message, /results are stored in a SQLite file or in PostgreSQL/);
      assert.ok(error.fix?.includes(`--db ${example})`), error.fix);
      return true;
    });
  }
  assert.equal(existsSync(join(directory, 'results.db')), false);
  // A path is a path, whatever its characters; only scheme:// is a URL.
  const store = openResultsStore(join(directory, 'mysql-results.db'));
  store.close();
  assert.equal(existsSync(join(directory, 'mysql-results.db')), true);
});

test('a PostgreSQL URL the driver would misread is refused at once, the password masked', () => {
  for (const location of ['postgres://toolforge:s3cret@127.0.0.1:notaport/postgres', 'postgresql://u:s3cret@[::1/db']) {
    assert.throws(() => openResultsStore(location), (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.equal(error.code, 'config.invalid');
      assert.match(error.message, /^--db postgres(ql)?:\/\/\w+:\*\*\*@/);
      assert.doesNotMatch(error.message, /s3cret/);
      assert.match(error.fix ?? '', /percent-encoding/);
      return true;
    });
  }
});

test('a database file name with no room for SQLite\'s -journal and -wal files beside it is refused before anything is made', () => {
  const directory = temporaryDirectory();
  // 247 bytes + '-journal' is the 255-byte limit of a file name: it opens, and a run can write it.
  const longest = join(directory, `${'a'.repeat(244)}.db`);
  const store = openResultsStore(longest);
  store.close();
  assert.equal(existsSync(longest), true);
  for (const name of [`${'a'.repeat(245)}.db`, `${'a'.repeat(300)}.db`, `${'é'.repeat(124)}.db`]) {
    assert.throws(() => openResultsStore(join(directory, 'new-folder', name)), (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.equal(error.code, 'store.unwritable');
      assert.match(error.message, /its file name is \d+ bytes, and SQLite also creates .*-journal beside it, past the 255-byte limit/);
      assert.equal(error.fix, 'pass --db with a file name of at most 247 bytes');
      return true;
    });
  }
  assert.equal(existsSync(join(directory, 'new-folder')), false);
});

test('a database file deleted, moved or replaced while episodes are written to it stops the writes, naming what happened', async () => {
  const { renameSync, rmSync, copyFileSync } = await import('node:fs');
  const { sampleEpisode, sampleRun } = await import('../runner/test-helpers.ts');
  const { createFakeSuite } = await import('../fixtures/fake-sum-suite.ts');
  const tasks = await createFakeSuite().generate({ seed: 1, count: 2, params: {} });
  const cases: [string, (path: string) => void, RegExp][] = [
    ['deleted', (path) => { for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true }); }, /was deleted or moved while it was being written/],
    ['moved', (path) => renameSync(path, `${path}.moved`), /was deleted or moved while it was being written/],
    ['replaced', (path) => { copyFileSync(path, `${path}.copy`); renameSync(`${path}.copy`, path); }, /was replaced by another file while it was being written/],
  ];
  for (const [name, change, message] of cases) {
    const path = join(temporaryDirectory(), 'results.db');
    const store = openResultsStore(path);
    store.createRun(sampleRun('run-p'), tasks);
    store.saveEpisodes([sampleEpisode('run-p', tasks[0].id, 0)]);
    change(path);
    assert.throws(() => store.saveEpisodes([sampleEpisode('run-p', tasks[1].id, 0)]), (error: unknown) => {
      assert.ok(error instanceof ConfigError, name);
      assert.equal(error.code, 'store.invalid', name);
      assert.match(error.message, message, name);
      assert.match(error.fix ?? '', /--resume/, name);
      return true;
    });
    store.close();
  }
  // An in-memory store has no file to lose.
  const memory = openResultsStore(':memory:');
  memory.createRun(sampleRun('run-m'), tasks);
  memory.saveEpisodes([sampleEpisode('run-m', tasks[0].id, 0)]);
  memory.close();
});

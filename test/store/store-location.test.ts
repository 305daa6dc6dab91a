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

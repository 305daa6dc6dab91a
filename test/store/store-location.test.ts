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

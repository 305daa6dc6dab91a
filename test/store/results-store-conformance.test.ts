import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/core/errors.ts';
import { join } from 'node:path';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { resultsStoreCases } from '../conformance/results-store.cases.ts';
import { temporaryDirectory } from '../runner/test-helpers.ts';
import { describeWithPostgres } from '../postgres-server.ts';
import { connectSynchronousPostgres } from '../../src/store/postgres/synchronous-postgres.ts';

describe('results store conformance: SQLite file', () => {
  let count = 0;
  resultsStoreCases(() => {
    count += 1;
    return openResultsStore(join(temporaryDirectory(), `results-${count}.db`));
  });
});

describeWithPostgres('results store conformance: PostgreSQL', (server) => {
  let count = 0;
  const opened: ResultsStore[] = [];
  resultsStoreCases(() => {
    // A fresh database per case, so each starts empty and migrates from nothing.
    count += 1;
    const admin = connectSynchronousPostgres(server.url);
    admin.query(`CREATE DATABASE case_${count}`);
    admin.close();
    const store = openResultsStore(server.url.replace(/\/postgres$/, `/case_${count}`));
    opened.push(store);
    return store;
  });

  test('a database holding other tables is refused, and the fix points at another database, not another file', () => {
    const admin = connectSynchronousPostgres(server.url);
    admin.query('CREATE DATABASE shop');
    admin.close();
    const shopUrl = server.url.replace(/\/postgres$/, '/shop');
    const shop = connectSynchronousPostgres(shopUrl);
    shop.query('CREATE TABLE customers (id integer PRIMARY KEY)');
    shop.close();
    assert.throws(() => openResultsStore(shopUrl), (error: unknown) => error instanceof ConfigError && error.code === 'store.invalid'
      && /is not a ToolForge results database: it holds other tables \(customers\)/.test(error.message)
      && /--db postgres:\/\/<host>\/<other database>/.test(error.fix ?? '') && !/other path|aside/.test(error.fix ?? ''));
  });
});

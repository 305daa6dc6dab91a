import { after, before, describe } from 'node:test';
import { join } from 'node:path';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { resultsStoreCases } from '../conformance/results-store.cases.ts';
import { temporaryDirectory } from '../runner/test-helpers.ts';
import { findPostgresBinaries, startPostgresServer } from '../postgres-server.ts';
import type { PostgresServer } from '../postgres-server.ts';
import { connectSynchronousPostgres } from '../../src/store/postgres/synchronous-postgres.ts';

describe('results store conformance: SQLite file', () => {
  let count = 0;
  resultsStoreCases(() => {
    count += 1;
    return openResultsStore(join(temporaryDirectory(), `results-${count}.db`));
  });
});

const binaries = findPostgresBinaries();
describe('results store conformance: PostgreSQL', { skip: 'missing' in binaries ? binaries.missing : false }, () => {
  let server: PostgresServer;
  let count = 0;
  const opened: ResultsStore[] = [];
  before(async () => {
    server = await startPostgresServer();
  });
  after(async () => {
    await server?.stop();
  });
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
});

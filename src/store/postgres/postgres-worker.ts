/**
 * The worker thread that owns a store's PostgreSQL connection. `pg` only speaks asynchronously; running it
 * here lets the store's thread keep the synchronous ResultsStore contract (what better-sqlite3 gives the
 * SQLite store) by waiting on a shared flag for each reply (synchronous-postgres.ts).
 */
import { workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import pg from 'pg';
import type { PostgresReply, PostgresRequest, PostgresResult, PostgresStatement, PostgresWorkerData } from './postgres-protocol.ts';

const { connectionString, signal, connectTimeoutMs, port } = workerData as PostgresWorkerData & { port: MessagePort };
const flag = new Int32Array(signal);

// BIGINT counts and sums arrive as text by default; every such value of ours fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));

const client = new pg.Client({ connectionString, connectionTimeoutMillis: connectTimeoutMs, application_name: 'toolforge' });
let connected: Promise<unknown> | undefined;

function reply(message: PostgresReply): void {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

async function execute(statement: PostgresStatement): Promise<PostgresResult> {
  const result = await client.query({ text: statement.sql, values: statement.parameters as unknown[] | undefined });
  return { rows: result.rows as Record<string, unknown>[], rowCount: result.rowCount ?? 0 };
}

async function handle(request: PostgresRequest): Promise<PostgresResult> {
  connected ??= client.connect();
  await connected;
  if (request.kind === 'query') return execute(request.statement);
  await client.end();
  return { rows: [], rowCount: 0 };
}

port.on('message', (request: PostgresRequest) => {
  handle(request).then(
    (result) => reply({ ok: true, result }),
    (error: unknown) => {
      const { message, code, detail } = error as { message?: string; code?: string; detail?: string };
      reply({ ok: false, error: { message: message ?? String(error), ...(code ? { code } : {}), ...(detail ? { detail } : {}) } });
    },
  );
});
// A broken connection surfaces on the next request; without a listener it would kill the thread.
client.on('error', () => undefined);

/**
 * A synchronous PostgreSQL connection: each call posts one request to the connection's worker thread
 * (postgres-worker.ts) and waits on a shared flag for the reply. The ResultsStore contract is synchronous
 * (better-sqlite3 is), so both stores serve every caller through one interface; a call blocks its thread
 * for one round trip, as a SQLite write blocks it for one file sync.
 */
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort, Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../core/module-worker.ts';
import { ConfigError, ToolForgeError } from '../../core/errors.ts';
import type { PostgresReply, PostgresRequest, PostgresResult, PostgresStatement, PostgresWorkerData } from './postgres-protocol.ts';
import { redactUrlPasswords } from '../../core/redact-credentials.ts';

export type SynchronousPostgres = {
  query(sql: string, parameters?: PostgresStatement['parameters']): PostgresResult;
  close(): void;
};

export class PostgresError extends ToolForgeError {
  readonly sqlState: string | undefined;
  constructor(message: string, options: { sqlState?: string; fix: string }) {
    super('store.postgres', message, { fix: options.fix });
    this.sqlState = options.sqlState;
  }
}

export type SynchronousPostgresOptions = {
  /** How long one request may wait for its reply (default 60 s): a server that stops answering fails, not hangs. */
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
};

/**
 * Blocks until the worker sets the flag (its reply is then on the port) or `timeoutMs` passes; false on timeout. A
 * wake-up with the flag still 0 is not a reply: the worker stores the flag before it notifies, so when the waiter
 * finds the flag set without sleeping, that notify lands on the waiter's next request and wakes it early. It waits
 * again for the rest of its time.
 */
export function waitForReplyFlag(flag: Int32Array, timeoutMs: number): boolean {
  const deadline = performance.now() + timeoutMs;
  while (Atomics.load(flag, 0) === 0) {
    const remaining = deadline - performance.now();
    if (remaining <= 0) return false;
    Atomics.wait(flag, 0, 0, remaining);
  }
  return true;
}

export function connectSynchronousPostgres(connectionString: string, options: SynchronousPostgresOptions = {}): SynchronousPostgres {
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const signal = new SharedArrayBuffer(4);
  const flag = new Int32Array(signal);
  const { port1, port2 } = new MessageChannel();
  const workerData: PostgresWorkerData & { port: MessagePort } = {
    connectionString, signal, connectTimeoutMs: options.connectTimeoutMs ?? 10_000, port: port2,
  };
  const worker: Worker = startModuleWorker(import.meta.url, './postgres-worker', { workerData, transferList: [port2] });
  // The store's process must be free to exit while the connection is idle.
  worker.unref();
  port1.unref();
  let closed = false;

  const request = (message: PostgresRequest): PostgresResult => {
    if (closed) throw new PostgresError('the PostgreSQL store is closed', { fix: 'open the store again' });
    Atomics.store(flag, 0, 0);
    port1.postMessage(message);
    if (!waitForReplyFlag(flag, requestTimeoutMs)) {
      closed = true;
      void worker.terminate();
      throw new PostgresError(`PostgreSQL did not answer within ${requestTimeoutMs} ms (${redactUrlPasswords(connectionString)})`, {
        fix: 'check that the server is running and reachable, and that no other session holds a lock on the tables',
      });
    }
    const received = receiveMessageOnPort(port1);
    if (!received) throw new PostgresError('the PostgreSQL worker answered without a reply', { fix: 'this is a ToolForge bug: report it' });
    const reply = received.message as PostgresReply;
    if (reply.ok) return reply.result;
    throw describeFailure(connectionString, reply.error);
  };

  return {
    query: (sql, parameters) => request({ kind: 'query', statement: { sql, parameters } }),
    close() {
      if (closed) return;
      try {
        request({ kind: 'close' });
      } catch {
        // Closing a connection that already failed has nothing left to do.
      } finally {
        closed = true;
        void worker.terminate();
      }
    },
  };
}

function describeFailure(connectionString: string, error: { message: string; code?: string; detail?: string }): ToolForgeError {
  const where = redactUrlPasswords(connectionString);
  const text = error.detail ? `${error.message} (${error.detail})` : error.message;
  if (error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'ETIMEDOUT' || /connect|timeout/i.test(error.message) && !error.code?.match(/^[0-9A-Z]{5}$/)) {
    return new ConfigError('store.unreachable', `cannot connect to PostgreSQL at ${where}: ${text}`, {
      fix: 'start the server, or fix the host and port in --db postgres://user:password@host:port/database',
    });
  }
  if (error.code === '28P01' || error.code === '28000') {
    return new ConfigError('store.unreachable', `PostgreSQL refused the login at ${where}: ${text}`, {
      fix: 'fix the user and password in --db postgres://user:password@host:port/database',
    });
  }
  if (error.code === '3D000') {
    return new ConfigError('store.unreachable', `PostgreSQL at ${where} has no such database: ${text}`, {
      fix: 'create it first (createdb <name>), or name an existing database in --db',
    });
  }
  return new PostgresError(`PostgreSQL: ${text}`, { sqlState: error.code, fix: 'see the message; the statement was rolled back and nothing of it was stored' });
}

/**
 * Messages between a store's thread and its PostgreSQL worker thread (postgres-worker.ts): one statement
 * per request, parameters positional ($1, $2, ...).
 */
export type PostgresValue = string | number | boolean | null | Uint8Array;

export type PostgresStatement = { sql: string; parameters?: readonly PostgresValue[] };

export type PostgresRequest =
  | { kind: 'query'; statement: PostgresStatement }
  | { kind: 'close' };

export type PostgresResult = { rows: Record<string, unknown>[]; rowCount: number };

export type PostgresReply =
  | { ok: true; result: PostgresResult }
  | { ok: false; error: { message: string; code?: string; detail?: string } };

export type PostgresWorkerData = { connectionString: string; signal: SharedArrayBuffer; connectTimeoutMs: number };

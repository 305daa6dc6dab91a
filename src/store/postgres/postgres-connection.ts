/**
 * A PostgreSQL database as the results store's SqlConnection: `@name` parameters become positional ones,
 * transactions are BEGIN/COMMIT on the store's own connection, and the schema is checked or upgraded on
 * open exactly as for a SQLite file (store-schema.ts).
 */
import type { OpenStoreOptions, SqlConnection, SqlParameters, SqlValue } from '../sql-connection.ts';
import { checkSchema, migrateSchema } from '../store-schema.ts';
import { connectSynchronousPostgres } from './synchronous-postgres.ts';
import { redactUrlPasswords } from '../../core/redact-credentials.ts';
import type { SynchronousPostgres } from './synchronous-postgres.ts';

export function openPostgresConnection(connectionString: string, options: OpenStoreOptions = {}): SqlConnection {
  const client = connectSynchronousPostgres(connectionString);
  const connection = postgresConnection(client, redactUrlPasswords(connectionString));
  try {
    if (options.readOnly === true) {
      if (checkSchema(connection) === 'older') migrateSchema(connection);
    } else {
      migrateSchema(connection);
    }
  } catch (error) {
    client.close();
    throw error;
  }
  return connection;
}

type Positional = { text: string; names: string[] };

/** `@name` -> `$n` (a name used twice keeps its number); `?` placeholders are numbered in order. */
function toPositional(sql: string): Positional {
  const names: string[] = [];
  let question = 0;
  const text = sql.replace(/@([A-Za-z_][A-Za-z0-9_]*)|\?/g, (match, name: string | undefined) => {
    if (name === undefined) {
      question += 1;
      return `$${question}`;
    }
    let index = names.indexOf(name);
    if (index < 0) {
      names.push(name);
      index = names.length - 1;
    }
    return `$${index + 1}`;
  });
  return { text, names };
}

function postgresConnection(client: SynchronousPostgres, location: string): SqlConnection {
  const converted = new Map<string, Positional>();
  const statement = (sql: string, parameters: SqlParameters | undefined): { text: string; values: SqlValue[] } => {
    let positional = converted.get(sql);
    if (!positional) {
      positional = toPositional(sql);
      converted.set(sql, positional);
    }
    if (parameters === undefined) return { text: positional.text, values: [] };
    if (Array.isArray(parameters)) return { text: positional.text, values: [...parameters] };
    const named = parameters as Record<string, SqlValue>;
    return { text: positional.text, values: positional.names.map((name) => named[name] ?? null) };
  };
  const query = (sql: string, parameters: SqlParameters | undefined) => {
    const { text, values } = statement(sql, parameters);
    return client.query(text, values);
  };
  let depth = 0;
  return {
    dialect: 'postgres',
    location,
    all: <Row>(sql: string, parameters?: SqlParameters) => query(sql, parameters).rows as Row[],
    get: <Row>(sql: string, parameters?: SqlParameters) => query(sql, parameters).rows[0] as Row | undefined,
    run: (sql, parameters) => query(sql, parameters).rowCount,
    transaction<T>(work: () => T): T {
      if (depth > 0) return work();
      client.query('BEGIN');
      depth += 1;
      try {
        const result = work();
        client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          client.query('ROLLBACK');
        } catch {
          // The connection itself failed: the server rolls the transaction back.
        }
        throw error;
      } finally {
        depth -= 1;
      }
    },
    close: () => client.close(),
  };
}

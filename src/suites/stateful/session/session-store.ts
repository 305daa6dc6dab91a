/**
 * The Session Service's data layer (seeds-reference 6.5) over SQLite: every session type is its own collection
 * with a unique (source, type, checksum) key, where the checksum is the MD5 of the session's data, so storing
 * identical data twice yields the existing session. One store is one in-memory database: a fresh store per test
 * case gives a fresh backend.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { canonicalJson, isJsonObject, type JsonObject, type JsonValue } from '../../../core/json.ts';

export const sessionTypes = [
  'main_session', 'virtual_study', 'group', 'comparison_session', 'settings', 'custom_data', 'genomic_chart', 'custom_gene_list',
] as const;
export type SessionType = typeof sessionTypes[number];

export type Session = { id: string; source: string; type: SessionType; data: JsonObject };

/** A request the service refuses; `status` is the HTTP status it answers with. */
export class SessionServiceError extends Error {
  constructor(readonly status: 400 | 404 | 409, message: string) {
    super(message);
  }
}

export function checkSourceAndType(source: string, type: string): SessionType {
  if (source.length < 3) throw new SessionServiceError(400, `source must be at least 3 characters long, got "${source}"`);
  if (!(sessionTypes as readonly string[]).includes(type)) {
    throw new SessionServiceError(400, `invalid type "${type}": valid types are: ${sessionTypes.join(', ')}`);
  }
  return type as SessionType;
}

/** MD5 of the data's canonical JSON (the real service hashes its parsed document; ours is key-order independent). */
export function sessionChecksum(data: JsonObject): string {
  return createHash('md5').update(canonicalJson(data)).digest('hex');
}

/** Reads a (dotted) field of a session as Mongo would for `{field: value}`: `data.title`, `source`, `id`. */
export function readField(session: Session, field: string): JsonValue | undefined {
  let current: JsonValue | undefined = session as unknown as JsonValue;
  for (const part of field.split('.')) {
    if (!isJsonObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

type SessionRow = { id: string; source: string; type: string; data: string };

export class SessionStore {
  readonly #database: Database.Database;
  #nextId = 1;

  constructor() {
    this.#database = new Database(':memory:');
    this.#database.exec(`CREATE TABLE sessions (
      sequence INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      source TEXT NOT NULL,
      type TEXT NOT NULL,
      checksum TEXT NOT NULL,
      data TEXT NOT NULL,
      UNIQUE (source, type, checksum)
    )`);
  }

  /** Stores the data and returns the new id, or the id of the session that already holds identical data. */
  add(source: string, type: string, data: JsonObject): string {
    const sessionType = checkSourceAndType(source, type);
    const checksum = sessionChecksum(data);
    const existing = this.#database.prepare('SELECT id FROM sessions WHERE source = ? AND type = ? AND checksum = ?')
      .get(source, sessionType, checksum) as { id: string } | undefined;
    if (existing) return existing.id;
    // Deterministic ObjectId-shaped ids: a fresh store always hands out the same sequence.
    const id = (this.#nextId++).toString(16).padStart(24, '0');
    this.#database.prepare('INSERT INTO sessions (id, source, type, checksum, data) VALUES (?, ?, ?, ?, ?)')
      .run(id, source, sessionType, checksum, JSON.stringify(data));
    return id;
  }

  list(source: string, type: string): Session[] {
    const sessionType = checkSourceAndType(source, type);
    const rows = this.#database.prepare('SELECT id, source, type, data FROM sessions WHERE source = ? AND type = ? ORDER BY sequence')
      .all(source, sessionType) as SessionRow[];
    return rows.map(toSession);
  }

  get(source: string, type: string, id: string): Session {
    const sessionType = checkSourceAndType(source, type);
    const row = this.#database.prepare('SELECT id, source, type, data FROM sessions WHERE source = ? AND type = ? AND id = ?')
      .get(source, sessionType, id) as SessionRow | undefined;
    if (!row) throw new SessionServiceError(404, 'Session not found');
    return toSession(row);
  }

  /** Sessions whose (dotted) fields equal the given values exactly (a Mongo equality filter). */
  find(source: string, type: string, filter: Record<string, JsonValue>): Session[] {
    return this.list(source, type).filter((session) => Object.entries(filter).every(([field, value]) => {
      const actual = readField(session, field);
      return actual !== undefined && canonicalJson(actual) === canonicalJson(value);
    }));
  }

  update(source: string, type: string, id: string, data: JsonObject): void {
    this.get(source, type, id);
    const checksum = sessionChecksum(data);
    const clash = this.#database.prepare('SELECT id FROM sessions WHERE source = ? AND type = ? AND checksum = ? AND id <> ?')
      .get(source, type, checksum, id) as { id: string } | undefined;
    if (clash) throw new SessionServiceError(409, `session ${clash.id} already holds identical data`);
    this.#database.prepare('UPDATE sessions SET data = ?, checksum = ? WHERE id = ?').run(JSON.stringify(data), checksum, id);
  }

  delete(source: string, type: string, id: string): void {
    this.get(source, type, id);
    this.#database.prepare('DELETE FROM sessions WHERE id = ?').run(id);
  }

  /** Every session, in insertion order (the backend's end state). */
  all(): Session[] {
    return (this.#database.prepare('SELECT id, source, type, data FROM sessions ORDER BY sequence').all() as SessionRow[]).map(toSession);
  }

  close(): void {
    this.#database.close();
  }
}

function toSession(row: SessionRow): Session {
  return { id: row.id, source: row.source, type: row.type as SessionType, data: JSON.parse(row.data) as JsonObject };
}

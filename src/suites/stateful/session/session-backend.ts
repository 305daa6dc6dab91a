/**
 * A fresh Session Service for one test case: a new in-memory SQLite store, seeded with the task's sessions, served
 * on 127.0.0.1, reachable from the program only at `sessionServiceBaseUrl` through the HTTP bridge.
 */
import { z } from 'zod';
import { canonicalJson, type JsonObject, type JsonValue } from '../../../core/json.ts';
import type { BackendFactory, StatefulBackend } from '../stateful-backend.ts';
import { createHttpBridge } from './http-bridge.ts';
import { startSessionServer } from './session-server.ts';
import { SessionStore, type Session } from './session-store.ts';

/** The base URL programs use (the Spring Boot default); the bridge maps it to the real server. */
export const sessionServiceBaseUrl = 'http://localhost:8080';

const sessionFixturesSchema = z.object({
  sessions: z.array(z.object({ source: z.string(), type: z.string(), data: z.record(z.string(), z.unknown()) })),
});
export type SessionFixtures = { sessions: { source: string; type: string; data: JsonObject }[] };

/**
 * The end state: per `source||type`, the multiset of session data (ids and checksums are the database's own, so
 * they are left out), as a sorted list so that plain equality is multiset equality.
 */
export function sessionStateSnapshot(sessions: readonly Pick<Session, 'source' | 'type' | 'data'>[]): JsonValue {
  const collections: Record<string, string[]> = {};
  for (const session of sessions) (collections[`${session.source}||${session.type}`] ??= []).push(canonicalJson(session.data));
  const snapshot: Record<string, JsonValue> = {};
  for (const key of Object.keys(collections).sort()) snapshot[key] = collections[key].sort().map((text) => JSON.parse(text) as JsonValue);
  return snapshot;
}

export const createSessionBackend: BackendFactory = async (fixtures) => {
  const parsed = sessionFixturesSchema.parse(fixtures) as SessionFixtures;
  const store = new SessionStore();
  for (const session of parsed.sessions) store.add(session.source, session.type, session.data);
  const server = await startSessionServer(store);
  const backend: StatefulBackend = {
    bindings: {},
    http: createHttpBridge({ publicOrigin: sessionServiceBaseUrl, targetOrigin: server.origin }),
    resolveResult: (value) => stripIdentifiers(value ?? null),
    snapshotState: () => sessionStateSnapshot(store.all()),
    dispose: () => server.close(),
  };
  return backend;
};

/** Ids and checksums are the database's choice: RESULT is compared without them (reference 6.4). */
export function stripIdentifiers(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(stripIdentifiers);
  if (value !== null && typeof value === 'object') {
    const result: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) if (key !== 'id' && key !== 'checksum') result[key] = stripIdentifiers(item);
    return result;
  }
  return value;
}

/** Session Service semantics (seeds-reference 6.5) over real HTTP, and the sandbox bridge's isolation. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox, type Sandbox } from '../../../../src/sandbox/index.ts';
import { createSessionBackend, sessionServiceBaseUrl } from '../../../../src/suites/stateful/session/session-backend.ts';
import { startSessionServer, type SessionServer } from '../../../../src/suites/stateful/session/session-server.ts';
import { sessionTypes } from '../../../../src/suites/stateful/session/session-store.ts';

let server: SessionServer;
before(async () => {
  server = await startSessionServer();
});
after(async () => {
  await server.close();
});

async function call(method: string, path: string, body?: string): Promise<{ status: number; data: unknown }> {
  const response = await fetch(`${server.origin}${path}`, {
    method, body, headers: body === undefined ? {} : { 'content-type': 'application/json' },
  });
  const text = await response.text();
  return { status: response.status, data: text === '' ? '' : JSON.parse(text) };
}

describe('session service endpoints', () => {
  test('POST returns only the id; identical data returns the existing id; other data a new one', async () => {
    const first = await call('POST', '/api/sessions/portal/virtual_study', JSON.stringify({ title: 'Lung', members: ['a'] }));
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.data as object), ['id']);
    const again = await call('POST', '/api/sessions/portal/virtual_study', JSON.stringify({ members: ['a'], title: 'Lung' }));
    assert.deepEqual(again.data, first.data);
    const other = await call('POST', '/api/sessions/portal/virtual_study', JSON.stringify({ title: 'Breast' }));
    assert.notDeepEqual(other.data, first.data);
    // The same data under another type or source is another collection: a new session.
    const elsewhere = await call('POST', '/api/sessions/portal/group', JSON.stringify({ title: 'Lung', members: ['a'] }));
    assert.notDeepEqual(elsewhere.data, first.data);
  });

  test('GET list returns full sessions of that source and type, in insertion order', async () => {
    const list = await call('GET', '/api/sessions/portal/virtual_study');
    assert.equal(list.status, 200);
    assert.deepEqual((list.data as { data: unknown }[]).map((session) => session.data), [{ title: 'Lung', members: ['a'] }, { title: 'Breast' }]);
    const session = (list.data as Record<string, unknown>[])[0];
    assert.deepEqual(Object.keys(session).sort(), ['data', 'id', 'source', 'type']);
    assert.equal(session.source, 'portal');
    assert.equal(session.type, 'virtual_study');
    assert.deepEqual((await call('GET', '/api/sessions/nobody/virtual_study')).data, []);
  });

  test('GET/PUT/DELETE by id, and 404 "Session not found" on unknown ids', async () => {
    const { data } = await call('POST', '/api/sessions/portal/settings', JSON.stringify({ theme: 'dark' }));
    const id = (data as { id: string }).id;
    assert.deepEqual((await call('GET', `/api/sessions/portal/settings/${id}`)).data, { id, source: 'portal', type: 'settings', data: { theme: 'dark' } });
    assert.equal((await call('PUT', `/api/sessions/portal/settings/${id}`, JSON.stringify({ theme: 'light' }))).status, 200);
    assert.deepEqual((await call('GET', `/api/sessions/portal/settings/${id}`)).data, { id, source: 'portal', type: 'settings', data: { theme: 'light' } });
    assert.equal((await call('DELETE', `/api/sessions/portal/settings/${id}`)).status, 200);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const missing = await call(method, `/api/sessions/portal/settings/${id}`, method === 'PUT' ? '{"a":1}' : undefined);
      assert.equal(missing.status, 404, method);
      assert.equal((missing.data as { message: string }).message, 'Session not found');
    }
  });

  test('GET query matches a dotted field by string equality; POST query/fetch takes an equality filter', async () => {
    await call('POST', '/api/sessions/queries/custom_gene_list', JSON.stringify({ title: 'A', count: '17' }));
    await call('POST', '/api/sessions/queries/custom_gene_list', JSON.stringify({ title: 'B', count: 17 }));
    const byTitle = await call('GET', '/api/sessions/queries/custom_gene_list/query?field=data.title&value=A');
    assert.deepEqual((byTitle.data as { data: unknown }[]).map((session) => session.data), [{ title: 'A', count: '17' }]);
    // A query value is a string: it never equals the number 17.
    const byCount = await call('GET', '/api/sessions/queries/custom_gene_list/query?field=data.count&value=17');
    assert.deepEqual((byCount.data as { data: unknown }[]).map((session) => session.data), [{ title: 'A', count: '17' }]);
    const fetched = await call('POST', '/api/sessions/queries/custom_gene_list/query/fetch', JSON.stringify({ 'data.count': 17 }));
    assert.deepEqual((fetched.data as { data: unknown }[]).map((session) => session.data), [{ title: 'B', count: 17 }]);
    assert.equal((await call('POST', '/api/sessions/queries/custom_gene_list/query/fetch', '{"$where":"1"}')).status, 400);
    assert.equal((await call('GET', '/api/sessions/queries/custom_gene_list/query?field=data.title')).status, 400);
  });

  test('400 for an unknown type (listing the 8 valid ones), a short source, invalid JSON and non-object data', async () => {
    const badType = await call('GET', '/api/sessions/portal/nonsense');
    assert.equal(badType.status, 400);
    assert.match((badType.data as { message: string }).message, new RegExp(`valid types are: ${sessionTypes.join(', ')}`));
    assert.equal(sessionTypes.length, 8);
    assert.equal((await call('POST', '/api/sessions/ab/group', '{"a":1}')).status, 400);
    assert.equal((await call('POST', '/api/sessions/abc/group', '{"a":1}')).status, 200);
    assert.equal((await call('POST', '/api/sessions/portal/group', '{not json')).status, 400);
    assert.equal((await call('POST', '/api/sessions/portal/group', '[1,2]')).status, 400);
  });

  test('PUT onto data another session already holds is refused (the unique checksum index)', async () => {
    const one = (await call('POST', '/api/sessions/portal/genomic_chart', '{"n":1}')).data as { id: string };
    await call('POST', '/api/sessions/portal/genomic_chart', '{"n":2}');
    assert.equal((await call('PUT', `/api/sessions/portal/genomic_chart/${one.id}`, '{"n":2}')).status, 409);
  });

  test('GET /info; unknown paths 404; wrong methods 405', async () => {
    assert.equal((await call('GET', '/info')).status, 200);
    assert.equal((await call('GET', '/api/other')).status, 404);
    assert.equal((await call('PATCH', '/api/sessions/portal/group')).status, 405);
  });
});

describe('the sandbox bridge', () => {
  let sandbox: Sandbox;
  let decoy: Server;
  let decoyHits = 0;
  before(async () => {
    sandbox = createSandbox({ poolSize: 1 });
    decoy = createServer((_request, response) => {
      decoyHits += 1;
      response.end('{}');
    });
    await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', () => resolve()));
  });
  after(async () => {
    await sandbox.dispose();
    await new Promise((resolve) => decoy.close(resolve));
  });

  test('axios and fetch reach the scenario server at its public base URL; the end state is seen', async () => {
    const backend = await createSessionBackend({ sessions: [{ source: 'portal', type: 'group', data: { title: 'seed' } }] });
    try {
      const result = await sandbox.run({
        code: `const created = (await axios.post('${sessionServiceBaseUrl}/api/sessions/portal/group', { title: 'new' })).data;
const listed = await (await fetch('${sessionServiceBaseUrl}/api/sessions/portal/group')).json();
const queried = (await axios.get('${sessionServiceBaseUrl}/api/sessions/portal/group/query', { params: { field: 'data.title', value: 'new' } })).data;
let missing;
try { await axios.get('${sessionServiceBaseUrl}/api/sessions/portal/group/ffffffffffffffffffffffff'); } catch (error) { missing = error.response.status; }
return { created: Object.keys(created), titles: listed.map((s) => s.data.title), queried: queried.length, missing };`,
        http: { respond: backend.http },
      });
      assert.equal(result.status, 'completed', JSON.stringify(result));
      assert.deepEqual(result.status === 'completed' && result.value, { created: ['id'], titles: ['seed', 'new'], queried: 1, missing: 404 });
      assert.deepEqual(backend.snapshotState(), { 'portal||group': [{ title: 'new' }, { title: 'seed' }] });
    } finally {
      await backend.dispose();
    }
  });

  test('model code cannot reach other hosts, other ports, the real server address, or the file system', async () => {
    const backend = await createSessionBackend({ sessions: [] });
    const decoyOrigin = `http://127.0.0.1:${(decoy.address() as AddressInfo).port}`;
    try {
      const result = await sandbox.run({
        code: `const outcomes = {};
for (const [name, url] of Object.entries({
  otherPort: 'http://localhost:9999/api/sessions/portal/group',
  decoy: '${decoyOrigin}/',
  otherHost: 'http://example.com/',
  https: 'https://localhost:8080/api/sessions/portal/group',
})) {
  try { await axios.get(url); outcomes[name] = 'reached'; } catch (error) { outcomes[name] = error.code; }
}
try { await fetch('${decoyOrigin}/'); outcomes.fetchDecoy = 'reached'; } catch (error) { outcomes.fetchDecoy = error.name; }
for (const name of ['fs', 'child_process', 'http', 'net']) {
  try { require(name); outcomes[name] = 'loaded'; } catch (error) { outcomes[name] = 'refused'; }
}
outcomes.process = typeof process;
return outcomes;`,
        http: { respond: backend.http },
      });
      assert.equal(result.status, 'completed', JSON.stringify(result));
      assert.deepEqual(result.status === 'completed' && result.value, {
        otherPort: 'ERR_NETWORK', decoy: 'ERR_NETWORK', otherHost: 'ERR_NETWORK', https: 'ERR_NETWORK', fetchDecoy: 'TypeError',
        fs: 'refused', child_process: 'refused', http: 'refused', net: 'refused', process: 'undefined',
      });
      assert.equal(decoyHits, 0);
    } finally {
      await backend.dispose();
    }
  });
});

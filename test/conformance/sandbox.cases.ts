/**
 * Conformance cases for any Sandbox implementation (src/sandbox/spec.ts): the recorded request for every axios
 * and fetch form, bindings, console capture, the virtual clock, excess-code stopping, and the adversarial
 * programs: each must end as a program verdict while the host stays untouched and the next program still runs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, SandboxError } from '../../src/core/errors.ts';
import type { JsonValue } from '../../src/core/json.ts';
import type { HttpResponse, RecordedRequest, Sandbox, SandboxOptions, SandboxProgram, SandboxResult } from '../../src/sandbox/spec.ts';

const accept = 'application/json, text/plain, */*';

function expectStatus<S extends SandboxResult['status']>(result: SandboxResult, status: S): Extract<SandboxResult, { status: S }> {
  assert.equal(result.status, status, `expected ${status}, got ${JSON.stringify(result)}`);
  return result as Extract<SandboxResult, { status: S }>;
}

function request(fields: Partial<RecordedRequest> & Pick<RecordedRequest, 'method' | 'url'>): RecordedRequest {
  return { client: 'axios', headers: { Accept: accept }, params: {}, bodyType: 'none', ...fields };
}

export function registerSandboxConformance(label: string, create: (options: SandboxOptions) => Sandbox): void {
  describe(`sandbox conformance: ${label}`, () => {
    let sandbox: Sandbox;
    before(() => {
      sandbox = create({ poolSize: 2, backstopGraceMs: 150 });
    });
    after(async () => {
      await sandbox.dispose();
    });

    const run = (code: string, extra: Omit<SandboxProgram, 'code'> = {}): Promise<SandboxResult> => sandbox.run({ code, ...extra });
    const requestsOf = async (code: string, extra: Omit<SandboxProgram, 'code'> = {}): Promise<RecordedRequest[]> => {
      const result = await run(code, extra);
      expectStatus(result, 'completed');
      return result.requests;
    };

    describe('axios forms are recorded as the reference mock logs them', () => {
      test('get with params and headers; the URL query moves into params as strings', async () => {
        const requests = await requestsOf(`const axios = require('axios');
          await axios.get('https://app.asana.com/api/1.0/attachments?opt_pretty&limit=50', {
            headers: { Authorization: 'Bearer <token>' }, params: { parent: '159874', offset: 3 } });`);
        assert.deepEqual(requests, [request({
          method: 'get', url: 'https://app.asana.com/api/1.0/attachments',
          headers: { Accept: accept, Authorization: 'Bearer <token>' },
          params: { parent: '159874', offset: 3, opt_pretty: true, limit: '50' },
        })]);
      });

      test('delete, head and options take (url, config); delete may carry config.data', async () => {
        const requests = await requestsOf(`
          await axios.delete('https://x.test/a/1', { data: { reason: 'dup' } });
          await axios.head('https://x.test/a');
          await axios.options('https://x.test/a');`);
        assert.deepEqual(requests, [
          request({ method: 'delete', url: 'https://x.test/a/1', headers: { Accept: accept, 'Content-Type': 'application/json' }, data: { reason: 'dup' }, bodyType: 'json' }),
          request({ method: 'head', url: 'https://x.test/a' }),
          request({ method: 'options', url: 'https://x.test/a' }),
        ]);
      });

      test('post, put and patch take (url, data, config); object data becomes JSON', async () => {
        const requests = await requestsOf(`
          await axios.post('https://slack.com/api/admin.apps.approve', { app_id: 'A1', count: 2 }, { headers: { Authorization: 'Bearer <token>' } });
          await axios.put('https://x.test/t/1', { done: true });
          await axios.patch('https://x.test/t/1', [1, 2]);`);
        const json = { Accept: accept, 'Content-Type': 'application/json' };
        assert.deepEqual(requests[0], request({
          method: 'post', url: 'https://slack.com/api/admin.apps.approve',
          headers: { ...json, Authorization: 'Bearer <token>' }, data: { app_id: 'A1', count: 2 }, bodyType: 'json',
        }));
        assert.deepEqual(requests[1], request({ method: 'put', url: 'https://x.test/t/1', headers: json, data: { done: true }, bodyType: 'json' }));
        // The reference decodes only bodies starting with '{' as JSON; an array body goes through its form parser.
        assert.equal(requests[2].method, 'patch');
        assert.equal(requests[2].bodyType, 'form');
      });

      test('axios(config), axios(url, config) and axios.request(config); method defaults to get', async () => {
        const requests = await requestsOf(`
          await axios({ method: 'POST', url: 'https://x.test/a', data: { a: 1 } });
          await axios('https://x.test/b', { params: { q: 'z' } });
          await axios.request({ url: 'https://x.test/c', method: 'delete' });`);
        assert.deepEqual(requests.map((entry) => [entry.method, entry.url, entry.params, entry.data ?? null]), [
          ['post', 'https://x.test/a', {}, { a: 1 }],
          ['get', 'https://x.test/b', { q: 'z' }, null],
          ['delete', 'https://x.test/c', {}, null],
        ]);
      });

      test('create() instances join baseURL and merge headers caselessly, first casing kept', async () => {
        const requests = await requestsOf(`
          const api = axios.create({ baseURL: 'https://api.test/v1/', headers: { 'x-api-key': 'k1', accept: 'application/json' } });
          api.defaults.headers.common['Authorization'] = 'Bearer a';
          await api.get('/users', { headers: { 'X-API-KEY': 'k2' } });
          const nested = api.create({ params: { locale: 'en' } });
          await nested.post('items', 'a=1&b=two');
          await api.get('https://other.test/abs');`);
        assert.deepEqual(requests[0], request({
          method: 'get', url: 'https://api.test/v1/users',
          headers: { Accept: 'application/json', Authorization: 'Bearer a', 'x-api-key': 'k2' },
        }));
        assert.deepEqual(requests[1], request({
          method: 'post', url: 'https://api.test/v1/items',
          headers: { Accept: 'application/json', Authorization: 'Bearer a', 'x-api-key': 'k1', 'Content-Type': 'application/x-www-form-urlencoded' },
          params: { locale: 'en' }, data: { a: '1', b: 'two' }, bodyType: 'form',
        }));
        assert.equal(requests[2].url, 'https://other.test/abs');
      });

      test('a user Content-Type keeps the canonical casing; post without data still gets axios\'s default', async () => {
        const requests = await requestsOf(`
          await axios.post('https://x.test/a', { a: 1 }, { headers: { 'content-type': 'application/json; charset=utf-8' } });
          await axios.post('https://x.test/empty');`);
        assert.deepEqual(requests[0].headers, { Accept: accept, 'Content-Type': 'application/json; charset=utf-8' });
        assert.deepEqual(requests[1], request({
          method: 'post', url: 'https://x.test/empty', headers: { Accept: accept, 'Content-Type': 'application/x-www-form-urlencoded' },
        }));
      });

      test('params as URLSearchParams become strings', async () => {
        const [recorded] = await requestsOf(`await axios.get('https://x.test/s', { params: new URLSearchParams({ page: 2, q: 'a b' }) });`);
        assert.deepEqual(recorded.params, { page: '2', q: 'a b' });
      });

      test('form bodies: URLSearchParams, k[] arrays and a[b][c] nesting, values as strings', async () => {
        const requests = await requestsOf(`
          const form = new URLSearchParams();
          form.append('channel', 'C1'); form.append('users[]', 'U1'); form.append('users[]', 'U2'); form.append('meta[a][b]', 'x y');
          await axios.post('https://slack.com/api/conversations.invite', form);
          await axios.post('https://x.test/f', { name: 'n', tags: ['a', 'b'], meta: { k: 'v' }, count: 3 },
            { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });`);
        assert.deepEqual(requests[0], request({
          method: 'post', url: 'https://slack.com/api/conversations.invite',
          headers: { Accept: accept, 'Content-Type': 'application/x-www-form-urlencoded;charset=utf-8' },
          data: { channel: 'C1', users: ['U1', 'U2'], meta: { a: { b: 'x y' } } }, bodyType: 'form',
        }));
        assert.deepEqual(requests[1].data, { name: 'n', tags: ['a', 'b'], meta: { k: 'v' }, count: '3' });
        assert.equal(requests[1].headers['Content-Type'], 'application/x-www-form-urlencoded');
      });

      test('FormData and multipart object bodies become objects of strings', async () => {
        const requests = await requestsOf(`
          const form = new FormData();
          form.append('file', new Blob(['hello']), 'a.txt'); form.append('n', 5);
          await axios.post('https://x.test/upload', form, { headers: { 'Content-Type': 'multipart/form-data' } });
          await axios.postForm('https://x.test/upload2', { title: 't', list: [1, 2] });`);
        assert.deepEqual(requests[0], request({
          method: 'post', url: 'https://x.test/upload', headers: { Accept: accept, 'Content-Type': 'multipart/form-data' },
          data: { file: 'hello', n: '5' }, bodyType: 'multipart',
        }));
        assert.deepEqual(requests[1].data, { title: 't', 'list[]': '2' });
        assert.equal(requests[1].bodyType, 'multipart');
      });

      test('a URL is decoded as the reference decodes it; a body starting with { that is not JSON is flagged', async () => {
        const requests = await requestsOf(`await axios.get('https://x.test/files/a%20b%2Fc');`);
        assert.equal(requests[0].url, 'https://x.test/files/a b/c');
        const bad = await requestsOf(`await axios.post('https://x.test/bad', '{oops');`);
        assert.equal(bad[0].data, '{oops');
        assert.match(bad[0].dataParseError ?? '', /not JSON/);
      });

      test('responses are promises of { data, status, headers, config }; unawaited requests are still recorded', async () => {
        const result = expectStatus(await run(`
          axios.get('https://x.test/fire-and-forget');
          const response = await axios.get('https://x.test/a');
          return { data: response.data, status: response.status, type: response.headers['content-type'], url: response.config.url,
            chained: await axios.get('https://x.test/b').then((r) => r.status) };`), 'completed');
        assert.deepEqual(result.value, { data: {}, status: 200, type: 'application/json', url: 'https://x.test/a', chained: 200 });
        assert.deepEqual(result.requests.map((entry) => entry.url), ['https://x.test/fire-and-forget', 'https://x.test/a', 'https://x.test/b']);
      });

      test('request interceptors apply before recording', async () => {
        const [recorded] = await requestsOf(`
          const api = axios.create();
          api.interceptors.request.use((config) => { config.headers.Authorization = 'Bearer intercepted'; return config; });
          await api.get('https://x.test/i');`);
        assert.equal(recorded.headers.Authorization, 'Bearer intercepted');
      });
    });

    describe('responses', () => {
      test('a canned response is configurable per program', async () => {
        const result = expectStatus(await run(`const r = await axios.post('https://x.test/a', { a: 1 }); return [r.status, r.data];`, {
          http: { respond: { status: 201, data: { id: 7 } } },
        }), 'completed');
        assert.deepEqual(result.value, [201, { id: 7 }]);
      });

      test('a host responder answers each request; non-2xx rejects axios and sets ok=false for fetch', async () => {
        const seen: string[] = [];
        const result = expectStatus(await run(`
          const found = await axios.get('https://svc.test/items/1');
          let error;
          try { await axios.get('https://svc.test/items/2'); } catch (e) { error = [e.name, e.isAxiosError, e.response.status, e.response.data.error, e.message]; }
          const f = await fetch('https://svc.test/items/2');
          return { found: found.data, error, fetch: [f.ok, f.status, await f.json()] };`, {
          http: {
            respond: async (recorded): Promise<HttpResponse> => {
              seen.push(recorded.url);
              return recorded.url.endsWith('/1') ? { status: 200, data: { id: 1 } } : { status: 404, data: { error: 'missing' } };
            },
          },
        }), 'completed');
        assert.deepEqual(seen, ['https://svc.test/items/1', 'https://svc.test/items/2', 'https://svc.test/items/2']);
        assert.deepEqual(result.value, {
          found: { id: 1 },
          error: ['AxiosError', true, 404, 'missing', 'Request failed with status code 404'],
          fetch: [false, 404, { error: 'missing' }],
        });
      });

      test('a responder that throws a plain error is a network error for the program', async () => {
        const result = expectStatus(await run(`
          const outcome = [];
          try { await axios.get('https://down.test/'); } catch (e) { outcome.push(e.code); }
          try { await fetch('https://down.test/'); } catch (e) { outcome.push(e.name + ': ' + e.message); }
          return outcome;`, { http: { respond: () => { throw new Error('connection refused'); } } }), 'completed');
        assert.deepEqual(result.value, ['ERR_NETWORK', 'TypeError: fetch failed']);
      });
    });

    describe('fetch', () => {
      test('fetch requests are recorded with the headers the program set', async () => {
        const result = expectStatus(await run(`
          const response = await fetch('https://api.test/v1/tasks?limit=2', {
            method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer t' },
            body: JSON.stringify({ name: 'x' }) });
          const body = await response.json();
          await fetch(new URL('/v1/ping', 'https://api.test'));
          return [response.ok, response.status, body];`), 'completed');
        assert.deepEqual(result.value, [true, 200, {}]);
        assert.deepEqual(result.requests, [
          {
            client: 'fetch', method: 'post', url: 'https://api.test/v1/tasks',
            headers: { 'Content-Type': 'application/json', Authorization: 'Bearer t' },
            params: { limit: '2' }, data: { name: 'x' }, bodyType: 'json',
          },
          { client: 'fetch', method: 'get', url: 'https://api.test/v1/ping', headers: {}, params: {}, bodyType: 'none' },
        ]);
      });

      test('fetch with a URLSearchParams body sends a form', async () => {
        const [recorded] = await requestsOf(`await fetch('https://x.test/f', { method: 'PUT', body: new URLSearchParams({ a: '1' }) });`);
        assert.deepEqual(recorded.data, { a: '1' });
        assert.equal(recorded.headers['Content-Type'], 'application/x-www-form-urlencoded;charset=UTF-8');
      });
    });

    describe('bindings', () => {
      test('namespaced async bindings get JSON arguments and their results are awaited', async () => {
        const calls: unknown[] = [];
        const result = expectStatus(await run(`
          const session = await api.createSession({ source: 'web', tags: ['a'], skip: undefined });
          const [one, two] = await Promise.all([api.getSession(session.id), api.getSession(session.id + 1)]);
          RESULT(one.id + two.id);
          return session;`, {
          bindings: {
            api: {
              createSession: async (data) => {
                calls.push(['create', data]);
                return { id: 41 };
              },
              getSession: (id) => {
                calls.push(['get', id]);
                return { id };
              },
            },
            RESULT: { call: (value: JsonValue) => { calls.push(['result', value]); }, returns: 'value' },
          },
        }), 'completed');
        assert.deepEqual(result.value, { id: 41 });
        assert.deepEqual(calls, [['create', { source: 'web', tags: ['a'] }], ['get', 41], ['get', 42], ['result', 83]]);
      });

      test('synchronous bindings return values directly; thrown errors reach the program with name and message', async () => {
        const result = expectStatus(await run(`
          const t = torch.zeros([2]);
          let message;
          try { await api.fail(); } catch (e) { message = e.name + ': ' + e.message; }
          let syncMessage;
          try { torch.bad(); } catch (e) { syncMessage = e.name + ': ' + e.message; }
          return { t, message, syncMessage };`, {
          bindings: {
            torch: {
              zeros: { call: (shape: JsonValue) => ({ shape, data: [0, 0] }), returns: 'value' },
              bad: { call: () => { throw new RangeError('bad shape'); }, returns: 'value' },
            },
            api: { fail: async () => { throw new TypeError('404 Not Found'); } },
          },
        }), 'completed');
        assert.deepEqual(result.value, {
          t: { shape: [2], data: [0, 0] }, message: 'TypeError: 404 Not Found', syncMessage: 'RangeError: bad shape',
        });
      });

      test('a binding throwing a SandboxError is infrastructure: run() rejects, and the next program runs', async () => {
        await assert.rejects(run('await api.down();', {
          bindings: { api: { down: async () => { throw new SandboxError('sandbox.crashed', 'backend unavailable'); } } },
        }), (error: unknown) => error instanceof SandboxError && /backend unavailable/.test(error.message));
        expectStatus(await run('return 1;'), 'completed');
      });

      test('a binding may not replace a sandbox global', async () => {
        await assert.rejects(sandbox.run({ code: '', bindings: { axios: () => 1 } }), ConfigError);
      });
    });

    describe('console, clock and determinism', () => {
      test('console output is captured by level with printf-style formatting', async () => {
        const result = await run(`console.log('a', 1, { b: [2] }); console.warn('%s=%d', 'x', 42); console.error(new TypeError('boom')); console.info(null, undefined);`);
        assert.deepEqual(result.logs.map((entry) => [entry.level, entry.text.split('\n')[0]]), [
          ['log', 'a 1 { b: [ 2 ] }'], ['warn', 'x=42'], ['error', 'TypeError: boom'], ['info', 'null undefined'],
        ]);
      });

      test('timers run on a virtual clock in due order; Date follows it', async () => {
        const result = expectStatus(await run(`
          const order = [];
          const start = Date.now();
          setTimeout(() => order.push('b'), 5000);
          setTimeout(() => order.push('a'), 10);
          const ticks = [];
          const interval = setInterval(() => { ticks.push(Date.now() - start); if (ticks.length === 3) clearInterval(interval); }, 100);
          await new Promise((resolve) => setTimeout(resolve, 6000));
          return { order, ticks, elapsed: Date.now() - start, iso: new Date(start).toISOString() };`), 'completed');
        assert.deepEqual(result.value, { order: ['a', 'b'], ticks: [100, 200, 300], elapsed: 6000, iso: '2024-01-01T00:00:00.000Z' });
      });

      test('the same program gives the same result (seeded Math.random, virtual clock)', async () => {
        const code = `await axios.post('https://x.test/r', { r: Math.random(), t: Date.now() }); return [Math.random(), new Date().getTime()];`;
        const first = await run(code, { seed: 7 });
        const second = await run(code, { seed: 7 });
        const other = await run(code, { seed: 8 });
        assert.deepEqual({ ...first, durationMs: 0 }, { ...second, durationMs: 0 });
        assert.notDeepEqual(expectStatus(first, 'completed').value, expectStatus(other, 'completed').value);
      });

      test('Node-style byte helpers and CommonJS leftovers work', async () => {
        const result = expectStatus(await run(`
          const basic = 'Basic ' + Buffer.from('user:pässword').toString('base64');
          await axios.get('https://x.test/me', { headers: { Authorization: basic } });
          module.exports = { basic };
          return [basic, Buffer.from(basic.slice(6), 'base64').toString(), Buffer.from('hi').toString('hex'),
            new TextDecoder().decode(new TextEncoder().encode('€')), btoa('ab'), atob('YWI=')];`), 'completed');
        assert.deepEqual(result.value, ['Basic dXNlcjpww6Rzc3dvcmQ=', 'user:pässword', '6869', '€', 'YWI=', 'ab']);
        assert.equal(result.requests[0].headers.Authorization, 'Basic dXNlcjpww6Rzc3dvcmQ=');
      });

      test('static imports of known modules work; the program may return a value', async () => {
        const result = expectStatus(await run(`import axios from 'axios';\nimport { default as client } from 'axios';\nreturn client === axios && typeof axios.get;`), 'completed');
        assert.equal(result.value, 'function');
      });
    });

    describe('a returned value that cannot be read as JSON says why, instead of reading as nothing', () => {
      const unreadable: [string, string, RegExp][] = [
        ['a cycle', 'const a = {}; a.self = a; return a;', /cannot be turned into JSON \(TypeError: .*circular/i],
        ['a BigInt', 'return { n: 10n };', /cannot be turned into JSON \(TypeError: .*BigInt/i],
        ['a toJSON that throws', "return { toJSON() { throw new RangeError('no JSON for you'); } };", /cannot be turned into JSON \(RangeError: no JSON for you\)/],
        ['a getter that never returns', 'return { get x() { for (;;) {} } };', /did not finish in time/],
      ];
      for (const [name, code, why] of unreadable) {
        test(name, async () => {
          const result = expectStatus(await run(code, { limits: { timeLimitMs: 2000 } }), 'completed');
          assert.equal(result.value, undefined);
          assert.match(result.valueError ?? '', why);
        });
      }
      test('nothing returned, or a function, is no value and no error', async () => {
        for (const code of ['return;', 'return () => 1;']) {
          const result = expectStatus(await run(code), 'completed');
          assert.deepEqual([result.value, result.valueError], [undefined, undefined]);
        }
      });
    });

    describe('excess code', () => {
      test("'stop-after-first-request' stops the program right after its first request", async () => {
        const result = expectStatus(await run(`
          axios.get('https://x.test/first', { params: { a: 1 } });
          axios.get('https://x.test/second');
          throw new Error('excess code ran');`, { http: { excessCode: 'stop-after-first-request' } }), 'completed');
        assert.equal(result.stoppedAfterFirstRequest, true);
        assert.deepEqual(result.requests.map((entry) => entry.url), ['https://x.test/first']);
      });

      test("'run-all' (the default) runs everything", async () => {
        const result = await run(`await axios.get('https://x.test/1'); await axios.get('https://x.test/2'); throw new Error('late');`);
        const failed = expectStatus(result, 'error');
        assert.equal(failed.error.message, 'late');
        assert.equal(failed.requests.length, 2);
      });
    });

    describe('adversarial programs end as verdicts; the host is untouched and the next program runs', () => {
      let server: Server;
      let port = 0;
      let connections = 0;
      before(async () => {
        server = createServer((_request, response) => response.end('{"leaked":true}'));
        server.on('connection', () => { connections += 1; });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        port = (server.address() as AddressInfo).port;
      });
      after(async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      });

      // A short deadline keeps the time-limited cases fast; the others end long before it.
      const quick = { limits: { timeLimitMs: 1_500 } };
      const cases: [string, string, SandboxResult['status'], RegExp?][] = [
        ['an endless loop', 'while (true) {}', 'timeout'],
        ['an endless loop that catches', 'for (;;) { try { while (true) {} } catch (e) {} }', 'timeout'],
        ['deep recursion', 'function down(n) { return down(n + 1) + 1; } return down(0);', 'stack-overflow'],
        ["require('fs')", "const fs = require('fs'); return fs.readFileSync('/etc/passwd', 'utf8');", 'error', /Cannot find module 'fs'/],
        ['process.exit()', 'process.exit(1);', 'error', /process/],
        ["import('fs')", "const fs = await import('fs'); return typeof fs;", 'error', /fs/],
        ['a static import of fs', "import fs from 'fs';\nreturn 1;", 'error', /Cannot find module 'fs'/],
        ['a constructor escape', "return globalThis.constructor.constructor('return process')().version;", 'error', /process/],
        ['a host-function escape', "return axios.get.constructor('return typeof process')() + typeof require('axios').constructor.constructor('return this')().process;", 'completed'],
        ['a never-settling promise', 'await new Promise(() => {});', 'unsettled'],
        ['a syntax error', 'return {;', 'error', /SyntaxError|expecting/],
        ['an error thrown in a timer', "setTimeout(() => { throw new RangeError('late'); }, 10); await new Promise((r) => setTimeout(r, 100));", 'error', /late/],
        ['an endless setInterval', 'setInterval(() => {}, 1); await new Promise(() => {});', 'timeout'],
        ['an error whose getter never returns', 'throw { get message() { for (;;) {} } };', 'error'],
        ['a result whose toJSON never returns', 'return { toJSON() { for (;;) {} } };', 'completed'],
        ['tampered built-ins under the host protocol', "Object.prototype.toJSON = function () { return 'forged'; }; await axios.get('https://x.test/'); console.log('x');", 'error', /TypeError/],
        ['an endless await loop', 'for (;;) await null;', 'timeout'],
        ['an endless microtask chain', 'const again = () => Promise.resolve().then(again); again(); await new Promise(() => {});', 'timeout'],
      ];
      // A runaway that also allocates (the microtask chain's promises) may meet the memory limit before the
      // deadline: either ends it as a limit, which is what matters.
      const alsoAccepted: Record<string, SandboxResult['status']> = { 'an endless microtask chain': 'memory-limit' };
      for (const [name, code, status, message] of cases) {
        test(name, async () => {
          const result = await run(code, quick);
          expectStatus(result, result.status === alsoAccepted[name] ? alsoAccepted[name] : status);
          if (message && result.status === 'error') assert.match(`${result.error.name}: ${result.error.message}`, message);
          expectStatus(await run('return 2 + 2;'), 'completed');
        });
      }

      test('a memory bomb', async () => {
        const result = await run('const parts = []; while (true) parts.push({ index: parts.length, list: [1, 2, 3] });', {
          limits: { timeLimitMs: 10_000, memoryLimitBytes: 8 * 1024 * 1024 },
        });
        expectStatus(result, 'memory-limit');
        expectStatus(await run('return 2 + 2;'), 'completed');
      });

      const bigBombs: [string, string][] = [
        ['large typed arrays', 'const parts = []; for (let i = 0; i < 40; i += 1) parts.push(new Uint8Array(1 << 24)); return parts.length;'],
        ['sliced typed arrays', 'const block = new Float64Array(1 << 17); const parts = []; while (true) parts.push(block.slice());'],
        ['repeated strings', "const parts = []; while (true) parts.push('x'.repeat(1 << 20));"],
        ['joined strings', "const piece = 'y'.repeat(60000); const parts = []; while (true) parts.push(Array(100).fill(piece).join(''));"],
        ['Float16Arrays', 'const parts = []; for (;;) parts.push(new Float16Array(1 << 16));'],
        ['one huge Float16Array before a request', "const big = new Float16Array(200e6); await axios.get('https://x.test/ok');"],
        ['a resized ArrayBuffer', "const buffer = new ArrayBuffer(0, { maxByteLength: 400e6 }); buffer.resize(400e6);"],
      ];
      for (const [name, code] of bigBombs) {
        test(`a memory bomb of ${name} (buffers QuickJS's own limit misses)`, async () => {
          const result = await run(code, { limits: { timeLimitMs: 10_000, memoryLimitBytes: 8 * 1024 * 1024 } });
          expectStatus(result, 'memory-limit');
          expectStatus(await run('return 2 + 2;'), 'completed');
        });
      }

      test('data nested deeper than the host reads ends as stack-overflow, never as a crash or a dropped request', async () => {
        for (const code of [
          "let o = 1; for (let i = 0; i < 5000; i += 1) o = { a: o }; axios.post('https://x.test/a', o);",
          "await axios.post('https://x.test/a', '{\"a\":' + '['.repeat(3000) + ']'.repeat(3000) + '}');",
          "await axios.post('https://x.test/a', 'a' + '[b]'.repeat(3000) + '=1');",
          "await axios.post('https://x.test/a', eval('['.repeat(100000) + ']'.repeat(100000)));",
          "let o = 1; for (let i = 0; i < 1000; i += 1) o = [o]; return o;",
        ]) {
          const result = await run(code, { limits: { timeLimitMs: 30_000 } });
          expectStatus(result, 'stack-overflow');
          assert.deepEqual(result.requests, []);
        }
        expectStatus(await run('return 2 + 2;'), 'completed');
      });

      test('a form body walking __proto__ is kept raw with a parse error; the next program is unaffected', async () => {
        const polluting = await requestsOf("await axios.post('https://x.test/a', '__proto__[c][d]=x&constructor[prototype][e]=y');");
        assert.equal(polluting[0].data, '__proto__[c][d]=x&constructor[prototype][e]=y');
        assert.match(polluting[0].dataParseError ?? '', /not allowed/);
        const [next] = await requestsOf("await axios.post('https://x.test/b', 'item[c][d]=1');");
        assert.deepEqual(next.data, { item: { c: { d: '1' } } });
      });

      test('huge program strings are capped with a marker giving the full length', async () => {
        const failed = expectStatus(await run("throw new Error('e'.repeat(20e6));", { limits: { timeLimitMs: 30_000 } }), 'error');
        assert.ok(failed.error.message.length <= 4096);
        assert.match(failed.error.message, /…\[cut \d+ characters; 20000000 in all\]$/);
      });

      test('no host capability is reachable', async () => {
        const result = expectStatus(await run(`return [typeof process, typeof WebAssembly, typeof SharedArrayBuffer + typeof Atomics, typeof std, typeof os, typeof globalThis.host, typeof __host, (() => { globalThis.escapedMarker = 1; return 'set'; })()];`), 'completed');
        assert.deepEqual(result.value, ['undefined', 'undefined', 'undefinedundefined', 'undefined', 'undefined', 'undefined', 'undefined', 'set']);
        assert.equal((globalThis as Record<string, unknown>).escapedMarker, undefined);
      });

      test('a real network request to a 127.0.0.1 server never leaves the sandbox', async () => {
        const result = expectStatus(await run(`
          const a = await axios.get('http://127.0.0.1:${port}/secret');
          const f = await fetch('http://127.0.0.1:${port}/secret2', { method: 'POST', body: 'x' });
          return [a.data, await f.text()];`), 'completed');
        assert.deepEqual(result.value, [{}, '{}']);
        assert.deepEqual(result.requests.map((entry) => entry.url), [`http://127.0.0.1:${port}/secret`, `http://127.0.0.1:${port}/secret2`]);
        assert.equal(connections, 0);
      });

      test('a runaway built-in that never reaches an interrupt check is stopped by the worker backstop', async () => {
        const result = await run(`
          await axios.get('https://x.test/before');
          console.log('started');
          const a = []; while (true) a.push(new Array(1e5).fill(1));`, { limits: { timeLimitMs: 100 } });
        // On a fast machine the worker's WASM memory ceiling can stop it first.
        assert.ok(result.status === 'timeout' || result.status === 'memory-limit', result.status);
        assert.deepEqual(result.requests.map((entry) => entry.url), ['https://x.test/before']);
        assert.deepEqual(result.logs, [{ level: 'log', text: 'started' }]);
        expectStatus(await run('return 3;'), 'completed');
      });

      test('programs beyond the pool size queue and all finish', async () => {
        const results = await Promise.all(Array.from({ length: 6 }, (_, index) => run(`return ${index};`)));
        assert.deepEqual(results.map((result) => expectStatus(result, 'completed').value), [0, 1, 2, 3, 4, 5]);
      });
    });

    describe('the contract', () => {
      test('a stack limit of 512 KiB or more is refused with a ConfigError naming the field', async () => {
        await assert.rejects(sandbox.run({ code: '', limits: { stackLimitBytes: 512 * 1024 } }),
          (error: unknown) => error instanceof ConfigError && /program\.limits\.stackLimitBytes/.test(error.message));
      });

      test('a time limit past what a Node timer holds (2^31 - 1 ms) is refused naming the field, not cut to 1 ms', async () => {
        await assert.rejects(sandbox.run({ code: 'return 1;', limits: { timeLimitMs: 2 ** 31 } }),
          (error: unknown) => error instanceof ConfigError && /program\.limits\.timeLimitMs/.test(error.message));
        expectStatus(await run('return 5;', { limits: { timeLimitMs: 2 ** 31 - 1 } }), 'completed');
      });

      test('aborting a run rejects it with the signal reason', async () => {
        const controller = new AbortController();
        const aborted = sandbox.run({ code: 'while (true) {}', limits: { timeLimitMs: 5_000 } }, { signal: controller.signal });
        controller.abort(new Error('cancelled by test'));
        await assert.rejects(aborted, /cancelled by test/);
        expectStatus(await run('return 4;'), 'completed');
      });

      test('a disposed sandbox refuses new programs with a SandboxError', async () => {
        const other = create({ poolSize: 1 });
        expectStatus(await other.run({ code: 'return 1;' }), 'completed');
        await other.dispose();
        await assert.rejects(other.run({ code: 'return 1;' }), SandboxError);
      });
    });
  });
}

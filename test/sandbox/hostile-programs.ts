/**
 * The adversarial corpus for the sandbox (issue 14): deep nesting, prototype pollution, allocation paths,
 * huge outputs and the earlier hostile programs, each with the verdict it must end with; plus valid programs
 * whose results must not change when they run between hostile ones. Shared by the tests and bench/hostile.ts.
 */
import assert from 'node:assert/strict';
import { fullTextLength, textCaps } from '../../src/core/cap-text.ts';
import type { SandboxProgram, SandboxResult, SandboxStatus } from '../../src/sandbox/spec.ts';
import { traceCaps } from '../../src/sandbox/spec.ts';

export type HostileKind = 'nesting' | 'pollution' | 'memory' | 'output-size' | 'earlier';

export type HostileProgram = {
  name: string;
  kind: HostileKind;
  program: SandboxProgram;
  status: SandboxStatus;
  /** A second verdict that is as right (a runaway allocation ends at whichever limit it reaches first). */
  alsoAccepted?: SandboxStatus;
  /** Further checks on the result (sizes, what was recorded). */
  check?: (result: SandboxResult) => void;
};

const nested = (open: string, inner: string, close: string, depth: number): string => open.repeat(depth) + inner + close.repeat(depth);
/** In-sandbox code building `{ a: { a: ... } }` `depth` levels deep. */
const deepObject = (depth: number): string => `(() => { let o = 1; for (let i = 0; i < ${depth}; i += 1) o = { a: o }; return o; })()`;

/** The verdict must not depend on how loaded the machine is: these programs end long before this. */
const slowMachineLimits = { timeLimitMs: 30_000 };
const memoryLimits = { timeLimitMs: 10_000, memoryLimitBytes: 8 * 1024 * 1024 };
const typedArrayKinds = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float16Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];

function recorded(result: SandboxResult): SandboxResult['requests'][number] {
  assert.equal(result.requests.length, 1, 'one request recorded');
  return result.requests[0];
}

const nesting: HostileProgram[] = [
  ['params with 3000 nested arrays in the source', `await axios.get('https://x.test/a', { params: { q: ${nested('[', '1', ']', 3000)} } });`],
  ['a body of 3000 nested object literals', `await axios.post('https://x.test/a', ${nested('{a:', '1', '}', 3000)});`],
  ['a literal eval string of 5000 nested brackets', `await axios.post('https://x.test/a', { a: eval('${nested('[', '', ']', 5000)}') });`],
  ['an eval string of 100000 nested brackets', "await axios.post('https://x.test/a', eval('['.repeat(100000) + ']'.repeat(100000)));"],
  ['source of 100000 nested brackets', `return ${nested('[', '', ']', 100_000)};`],
  ['a body built 5000 levels deep', `await axios.post('https://x.test/a', ${deepObject(5000)});`],
  ['a body just past the nesting bound (200 levels)', `await axios.post('https://x.test/a', ${deepObject(200)});`],
  ['a request whose failure the program catches', `try { await axios.post('https://x.test/a', ${deepObject(5000)}); } catch (error) {} return 'survived';`],
  ['an unawaited deep request (as webapi runs it)', `axios.post('https://x.test/a', ${deepObject(5000)});`],
  ['a JSON string body 3000 levels deep', "await axios.post('https://x.test/a', '{\"a\":' + '['.repeat(3000) + ']'.repeat(3000) + '}');"],
  ['a form body with 3000 nested keys', "await axios.post('https://x.test/a', 'a' + '[b]'.repeat(3000) + '=1');"],
  ['a fetch body 3000 levels deep', "await fetch('https://x.test/a', { method: 'POST', body: '{\"a\":' + '['.repeat(3000) + ']'.repeat(3000) + '}' });"],
  ['headers nested 3000 levels deep', `await axios.get('https://x.test/a', { headers: ${deepObject(3000)} });`],
  ['a returned value 1000 levels deep', `return ${deepObject(1000)};`],
  ['a binding argument 1000 levels deep', `await api.echo(${deepObject(1000)}); return 'sent';`],
].map(([name, code]) => ({
  name, kind: 'nesting' as const, status: 'stack-overflow' as const,
  program: { code, limits: slowMachineLimits, bindings: { api: { echo: async (value: unknown) => value } }, http: { excessCode: name.includes('webapi') ? 'stop-after-first-request' as const : 'run-all' as const } },
  check: (result: SandboxResult) => assert.equal(result.requests.length, 0, 'nothing too deep is recorded'),
}));

/** Form keys that walk to Object.prototype in a decoder that follows them. */
export const pollutingFormBody = '__proto__[c][d]=polluted&__proto__[url]=evil&constructor[prototype][kind]=evil&a[__proto__][e]=1&prototype[x]=1';

const pollution: HostileProgram[] = [
  {
    name: 'a form body walking __proto__ and constructor.prototype', kind: 'pollution', status: 'completed',
    program: { code: `await axios.post('https://x.test/form', ${JSON.stringify(pollutingFormBody)}); return ({}).c === undefined;` },
    check: (result) => {
      const request = recorded(result);
      assert.equal(request.data, pollutingFormBody, 'the body stays raw');
      assert.match(request.dataParseError ?? '', /not allowed/);
    },
  },
  {
    name: 'a JSON body with a __proto__ key', kind: 'pollution', status: 'completed',
    program: { code: `await axios.post('https://x.test/json', '{"__proto__": {"polluted": 1}, "a": 1}');` },
    check: (result) => assert.deepEqual(Object.keys(recorded(result).data as object).sort(), ['__proto__', 'a']),
  },
  {
    name: 'in-sandbox prototypes, built-ins and axios defaults replaced', kind: 'pollution', status: 'completed',
    program: {
      code: `Object.prototype.polluted = 'yes'; Array.prototype.map = null; JSON.stringify = () => 'forged';
        String.prototype.toLowerCase = () => 'forged'; axios.defaults.headers.common['X-Polluted'] = 'yes';
        globalThis.leak = 1; Math.random = () => 0.5; Date.now = () => 0; return 'done';`,
    },
  },
  {
    // A worker's module starts each program from the memory image taken after its prelude was compiled: this one
    // grows the heap well past that image and leaves it full, so the next program's state is the restore's work.
    name: 'a heap grown past the prepared image and left full, an enumerable Array.prototype key, timers left queued',
    kind: 'pollution', status: 'completed',
    program: {
      code: `globalThis.kept = []; for (let i = 0; i < 3000; i += 1) globalThis.kept.push('x'.repeat(4000) + i);
        Object.defineProperty(Array.prototype, 'extra', { value: 1, enumerable: true }); setTimeout(() => { globalThis.leak = 2; }, 1e9);
        return kept.length;`,
    },
  },
];

const memory: HostileProgram[] = [
  ...typedArrayKinds.flatMap((kind): [string, string][] => [
    [`one ${kind} of 50 M elements, then the right request`, `const big = new ${kind}(50e6); await axios.get('https://x.test/ok'); return big.length;`],
    [`a loop of 64 K-element ${kind}s`, `const parts = []; for (;;) parts.push(new ${kind}(1 << 16));`],
  ]),
  ['an iterable copied into typed arrays', 'const parts = []; function* ones() { for (let i = 0; i < 100000; i += 1) yield 1; } for (;;) parts.push(Float64Array.from(ones()));'],
  ['one ArrayBuffer of 400 MB', "const buffer = new ArrayBuffer(400e6); await axios.get('https://x.test/ok');"],
  ['a resizable ArrayBuffer grown to 400 MB', "const buffer = new ArrayBuffer(0, { maxByteLength: 400e6 }); buffer.resize(400e6); await axios.get('https://x.test/ok');"],
  ['ArrayBuffer.transfer to 1 MB in a loop', 'const parts = []; for (;;) parts.push(new ArrayBuffer(8).transfer(1 << 20));'],
  ['sliced typed arrays', 'const block = new Float64Array(1 << 17); const parts = []; for (;;) parts.push(block.slice());'],
  ['repeated strings', "const parts = []; for (;;) parts.push('x'.repeat(1 << 20));"],
  ['padded strings', "const parts = []; for (;;) parts.push(''.padStart(1 << 20, 'p'));"],
  ['a string doubled until it is too long', "let text = 'x'; for (;;) text += text;"],
  ['joined strings', "const parts = []; const items = Array(1 << 14).fill('abcdefgh'); for (;;) parts.push(items.join(''));"],
  ['concatenated strings', "const parts = []; const piece = 'z'.repeat(60000); for (;;) parts.push(piece.concat(piece, piece));"],
  ['replaceAll expansions', "const parts = []; const piece = 'a'.repeat(60000); for (;;) parts.push(piece.replaceAll('a', 'bbbb'));"],
  ['indented JSON', 'const parts = []; const list = Array(10000).fill(1); for (;;) parts.push(JSON.stringify(list, null, 40));'],
  ['template literals', "const parts = []; const piece = 'a'.repeat(60000); for (;;) parts.push(`${piece}${piece}${parts.length}`);"],
  ['small objects', 'const parts = []; for (;;) parts.push({ index: parts.length, list: [1, 2, 3] });'],
  ['typed arrays just under the charged size', 'const parts = []; for (;;) parts.push(new Uint8Array(60000));'],
  ['a Map', "const map = new Map(); for (let i = 0; ; i += 1) map.set(i, 'x' + i);"],
  ['a Set of objects', 'const set = new Set(); for (let i = 0; ; i += 1) set.add({ i });'],
].map(([name, code]) => ({ name, kind: 'memory' as const, status: 'memory-limit' as const, program: { code, limits: memoryLimits } }));

memory.push({
  name: 'SharedArrayBuffer, Atomics and WebAssembly are unreachable', kind: 'memory', status: 'completed',
  program: { code: 'return [typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly, typeof globalThis.SharedArrayBuffer];' },
  check: (result) => assert.deepEqual((result as Extract<SandboxResult, { status: 'completed' }>).value, ['undefined', 'undefined', 'undefined', 'undefined']),
});

const outputSize: HostileProgram[] = [
  {
    name: 'a 20 MB thrown error', kind: 'output-size', status: 'error',
    program: { limits: slowMachineLimits, code: "throw new Error('e'.repeat(20e6));" },
    check: (result) => {
      const { error } = result as Extract<SandboxResult, { status: 'error' }>;
      assert.ok(error.message.length <= textCaps.message);
      assert.equal(fullTextLength(error.message), 20e6);
      assert.ok((error.stack ?? '').length <= textCaps.message);
    },
  },
  {
    name: 'a 5 MB console entry', kind: 'output-size', status: 'completed',
    program: { limits: slowMachineLimits, code: "console.log('l'.repeat(5e6)); return 1;" },
    check: (result) => {
      assert.equal(result.logs.length, 1);
      assert.ok(result.logs[0].text.length <= textCaps.message);
      assert.equal(fullTextLength(result.logs[0].text), 5e6);
    },
  },
  {
    name: 'a 1 MB URL, header and params value', kind: 'output-size', status: 'completed',
    program: { limits: slowMachineLimits, code: "const big = 'u'.repeat(1e6); await axios.get('https://x.test/' + big, { headers: { 'X-Big': big }, params: { q: big } });" },
    check: (result) => {
      const request = recorded(result);
      assert.ok(request.url.length <= textCaps.field);
      assert.equal(fullTextLength(request.url), 'https://x.test/'.length + 1e6);
      assert.ok(request.headers['X-Big'].length <= textCaps.field);
      assert.ok(String(request.params.q).length <= textCaps.field);
      assert.deepEqual(Object.keys(request.cutCharacters ?? {}).sort(), ['headers', 'params', 'url']);
    },
  },
  {
    name: 'a 5 MB body', kind: 'output-size', status: 'completed',
    program: { limits: slowMachineLimits, code: "await axios.post('https://x.test/a', { text: 'b'.repeat(5e6), keep: 'small' });" },
    check: (result) => {
      const data = recorded(result).data as Record<string, string>;
      assert.equal(data.keep, 'small');
      assert.equal(fullTextLength(data.text), 5e6);
      assert.ok(JSON.stringify(result).length < 100_000);
    },
  },
  {
    name: 'three hundred 100 KB requests', kind: 'output-size', status: 'completed',
    program: {
      code: "const body = { text: 'r'.repeat(100000) }; let refused = 0; for (let i = 0; i < 300; i += 1) { try { await axios.post('https://x.test/a', body); } catch (error) { refused += 1; } } return refused;",
      limits: slowMachineLimits,
    },
    check: (result) => {
      assert.ok(JSON.stringify(result.requests).length <= traceCaps.requestCharacters + 1000);
      assert.ok((result as Extract<SandboxResult, { status: 'completed' }>).value as number > 0, 'requests past the budget are refused');
    },
  },
  {
    name: 'a 5 MB returned value', kind: 'output-size', status: 'completed',
    program: { limits: slowMachineLimits, code: "return { text: 'v'.repeat(5e6) };" },
    check: (result) => {
      const value = (result as Extract<SandboxResult, { status: 'completed' }>).value as Record<string, string>;
      assert.equal(fullTextLength(value.text), 5e6);
      assert.ok(value.text.length <= textCaps.field);
    },
  },
];

const quick = { timeLimitMs: 300 };
const earlier: HostileProgram[] = ([
  ['an endless loop', 'while (true) {}', 'timeout'],
  ['an endless loop that catches', 'for (;;) { try { while (true) {} } catch (e) {} }', 'timeout'],
  ['deep recursion', 'function down(n) { return down(n + 1) + 1; } return down(0);', 'stack-overflow'],
  ["require('fs')", "return require('fs').readFileSync('/etc/passwd', 'utf8');", 'error'],
  ['a constructor escape', "return globalThis.constructor.constructor('return process')().version;", 'error'],
  ['a never-settling promise', 'await new Promise(() => {});', 'unsettled'],
  ['an endless setInterval', 'setInterval(() => {}, 1); await new Promise(() => {});', 'timeout'],
  ['an error whose getter never returns', 'throw { get message() { for (;;) {} } };', 'error'],
  ['tampered toJSON under the host protocol', "Object.prototype.toJSON = function () { return 'forged'; }; await axios.get('https://x.test/'); console.log('x');", 'error'],
  ['an endless await loop', 'for (;;) await null;', 'timeout'],
  ['an endless microtask chain', 'const again = () => Promise.resolve().then(again); again(); await new Promise(() => {});', 'timeout'],
  ['a runaway built-in past the deadline', "await axios.get('https://x.test/before'); const a = []; while (true) a.push(new Array(1e5).fill(1));", 'timeout'],
] as [string, string, SandboxStatus][]).map(([name, code, status]) => ({
  name, kind: 'earlier' as const, status, program: { code, limits: quick },
  // Both are limits, and which one a runaway allocation or an endless microtask chain (each step allocates a promise
  // the engine keeps queued) meets first depends on how fast the machine runs it.
  ...(name.startsWith('a runaway') || name === 'an endless microtask chain' ? { alsoAccepted: 'memory-limit' as const } : {}),
}));

export const hostilePrograms: readonly HostileProgram[] = [...nesting, ...pollution, ...memory, ...outputSize, ...earlier];

/** Valid programs touching what hostile ones attack: recording, decoding, prototypes, built-ins, clock, bindings. */
export const validPrograms: readonly SandboxProgram[] = [
  { code: "const r = await axios.get('https://x.test/items?limit=5', { headers: { Authorization: 'Bearer t' }, params: { page: 2 } }); return [r.status, r.data];" },
  { code: "await axios.post('https://x.test/items', { name: 'n', tags: ['a', 'b'], meta: { c: { d: 1 } } }); return 'posted';" },
  { code: "const form = new URLSearchParams(); form.append('c[d]', 'x'); form.append('url', 'u'); form.append('kind[]', 'k'); await axios.post('https://x.test/form', form); return form.toString();" },
  { code: "const f = await fetch('https://x.test/f', { method: 'PUT', body: 'a[c][d]=1&b=2' }); return [f.ok, await f.text()];" },
  { code: "await axios.post('https://x.test/json', '{\"c\":{\"d\":[1,2]}}'); return ['ABC'.toLowerCase(), [1, 2].map((x) => x * 2), JSON.stringify({ a: 1 })];" },
  { code: "return [typeof ({}).polluted, typeof ({}).c, Object.keys(axios.defaults.headers.common), typeof globalThis.leak, Math.random(), Date.now()];", seed: 3 },
  { code: "const keys = []; for (const key in [1]) keys.push(key); return [keys, typeof globalThis.kept];" },
  { code: "const start = Date.now(); await new Promise((resolve) => setTimeout(resolve, 500)); return [Date.now() - start, await api.add(2, 3)];", bindings: { api: { add: async (a, b) => (a as number) + (b as number) } } },
  { code: "const bytes = new Uint8Array([1, 2, 3]); const half = new Float16Array(4); return [Array.from(bytes.slice(1)), half.length, 'ab'.repeat(3), new ArrayBuffer(16).byteLength];" },
];

/** A result without its timing, for comparing runs. */
export function comparable(result: SandboxResult): unknown {
  return structuredClone({ ...result, durationMs: 0 });
}

/**
 * A hundred hostile answers to the first WAPIIBench task (Asana: list attachments), written as a model would send
 * them (one axios call in a code fence, so the pipeline's cut keeps all of it), each with the failure code it must
 * be scored with; plus valid answers to interleave. Shared by test/e2e/hostile-webapi.test.ts and bench/hostile.ts.
 */
import type { FailureCode } from '../../src/core/failure.ts';

export type HostileAnswer = { name: string; output: string; failure: FailureCode | 'passed' };

const url = 'https://app.asana.com/api/1.0/attachments';
const auth = "{ headers: { Authorization: 'Bearer <token>' } }";
const goodParams = "{ parent: '159874', limit: 50 }";
/** An answer whose params come from `expression` (which must not contain the pipeline's cut `});`). */
const withParams = (expression: string): string => `\`\`\`javascript\naxios.get('${url}', { headers: { Authorization: 'Bearer <token>' }, params: ${expression} });\n\`\`\``;
/** An answer posting `body` (a JavaScript expression). */
const posting = (body: string): string => `\`\`\`javascript\naxios.post('${url}', ${body}, ${auth});\n\`\`\``;
/** Runs `statements` before returning the right params. */
const before = (statements: string): string => withParams(`(() => { ${statements} return ${goodParams} })()`);
const deepObject = (depth: number): string => `(() => { let o = 1; for (let i = 0; i < ${depth}; i += 1) o = { a: o }; return o })()`;

const typedArrayKinds = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float16Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];

const limit = 'limit.exceeded' as const;

const nesting: HostileAnswer[] = [
  ...[300, 1000, 3000].map((depth) => ({ name: `params with ${depth} nested arrays`, output: withParams(`{ parent: ${'['.repeat(depth)}1${']'.repeat(depth)} }`), failure: limit })),
  ...[300, 1000, 3000].map((depth) => ({ name: `a body of ${depth} nested object literals`, output: posting(`${'{a:'.repeat(depth)}1${'}'.repeat(depth)}`), failure: limit })),
  ...[1000, 5000].map((depth) => ({ name: `params from a literal eval string ${depth} deep`, output: withParams(`{ parent: eval('${'['.repeat(depth)}${']'.repeat(depth)}') }`), failure: limit })),
  { name: 'params from an eval string 100000 deep', output: withParams("eval('['.repeat(100000) + ']'.repeat(100000))"), failure: limit },
  { name: 'source 100000 brackets deep', output: `\`\`\`javascript\naxios.get(${'['.repeat(100_000)}${']'.repeat(100_000)});\n\`\`\``, failure: limit },
  ...[200, 1000, 5000, 20000].map((depth) => ({ name: `a body built ${depth} deep`, output: posting(deepObject(depth)), failure: limit })),
  ...[200, 3000].map((depth) => ({ name: `a JSON string body ${depth} deep`, output: posting(`'{"a":' + '['.repeat(${depth}) + ']'.repeat(${depth}) + '}'`), failure: limit })),
  ...[200, 3000].map((depth) => ({ name: `a form body with ${depth} nested keys`, output: posting(`'a' + '[b]'.repeat(${depth}) + '=1'`), failure: limit })),
  { name: 'headers built 3000 deep', output: `\`\`\`javascript\naxios.get('${url}', { headers: ${deepObject(3000)} });\n\`\`\``, failure: limit },
  { name: 'params built 3000 deep', output: withParams(deepObject(3000)), failure: limit },
  { name: 'a deep fetch body sent first', output: before(`const init = { method: 'POST', body: '{"a":' + '['.repeat(3000) + ']'.repeat(3000) + '}' }; fetch('${url}', init);`), failure: limit },
  { name: 'a deep request whose failure is caught', output: before(`try { axios.post('${url}', ${deepObject(5000)}) } catch (error) {}`), failure: limit },
  ...[300, 1000, 3000].map((depth) => ({ name: `params with ${depth} nested object literals`, output: withParams(`${'{ parent: '.repeat(depth)}1${' }'.repeat(depth)}`), failure: limit })),
  { name: 'a body just past the nesting bound (129 levels)', output: posting(deepObject(129)), failure: limit },
  { name: 'a body at the nesting bound (128 levels) is recorded and judged', output: posting(deepObject(128)), failure: 'arguments.invalid' },
  // QuickJS's parser reports this depth as 'invalid property name': a SyntaxError, so the answer does not parse.
  { name: 'an eval string of 5000 nested object literals', output: withParams(`eval('(' + '{a:'.repeat(5000) + '1' + '}'.repeat(5000) + ')')`), failure: 'output.unparsable' },
  { name: 'axios.create with a config 5000 deep', output: before(`const config = { params: ${deepObject(5000)} }; axios.create(config);`), failure: limit },
  { name: 'a returned deep value beside the request', output: withParams(`{ parent: '159874', limit: 50, deep: ${deepObject(1000)} }`), failure: limit },
];

const memory: HostileAnswer[] = [
  ...typedArrayKinds.flatMap((kind) => [
    { name: `one ${kind} of 50 M elements, then the right request`, output: before(`const big = new ${kind}(50e6);`), failure: limit },
    { name: `a loop of ${kind}s`, output: before(`const parts = []; for (;;) parts.push(new ${kind}(1 << 16));`), failure: limit },
    { name: `a loop of sliced ${kind}s`, output: before(`const block = new ${kind}(1 << 16); const parts = []; for (;;) parts.push(block.slice());`), failure: limit },
  ]),
  { name: 'one ArrayBuffer of 400 MB', output: before('const buffer = new ArrayBuffer(400e6);'), failure: limit },
  { name: 'a resizable ArrayBuffer grown to 400 MB', output: before('const options = { maxByteLength: 400e6 }; const buffer = new ArrayBuffer(0, options); buffer.resize(400e6);'), failure: limit },
  { name: 'ArrayBuffer.transfer in a loop', output: before('const parts = []; for (;;) parts.push(new ArrayBuffer(8).transfer(1 << 20));'), failure: limit },
  { name: 'Buffer.alloc of 100 MB', output: before('const big = Buffer.alloc(100e6);'), failure: limit },
  { name: 'repeated strings', output: before("const parts = []; for (;;) parts.push('x'.repeat(1 << 20));"), failure: limit },
  { name: 'padded strings', output: before("const parts = []; for (;;) parts.push(''.padEnd(1 << 20, 'p'));"), failure: limit },
  { name: 'a string doubled until too long', output: before("let text = 'x'; for (;;) text += text;"), failure: limit },
  { name: 'joined strings', output: before("const parts = []; const items = Array(1 << 14).fill('abcdefgh'); for (;;) parts.push(items.join(''));"), failure: limit },
  { name: 'concatenated strings', output: before("const parts = []; const piece = 'z'.repeat(60000); for (;;) parts.push(piece.concat(piece, piece));"), failure: limit },
  { name: 'replaceAll expansions', output: before("const parts = []; const piece = 'a'.repeat(60000); for (;;) parts.push(piece.replaceAll('a', 'bbbb'));"), failure: limit },
  { name: 'indented JSON', output: before('const parts = []; const list = Array(10000).fill(1); for (;;) parts.push(JSON.stringify(list, null, 40));'), failure: limit },
  { name: 'template literals', output: before("const parts = []; const piece = 'a'.repeat(60000); for (;;) parts.push(`${piece}${piece}${parts.length}`);"), failure: limit },
  { name: 'small objects', output: before('const parts = []; for (;;) parts.push([parts.length, [1, 2, 3]]);'), failure: limit },
];

const pollution: HostileAnswer[] = [
  { name: 'a form body walking __proto__', output: posting("'__proto__[c][d]=polluted&constructor[prototype][kind]=evil&a[__proto__][e]=1'"), failure: 'execution.error' },
  { name: 'a form body polluting url and params names', output: posting("'__proto__[url]=evil&__proto__[params][x]=1&__proto__[parent]=1'"), failure: 'execution.error' },
  { name: 'in-sandbox prototypes replaced before the right request', output: before("Object.prototype.polluted = 'yes'; JSON.parse = null; Math.max = null; globalThis.leak = 1;"), failure: 'passed' },
];

const outputSize: HostileAnswer[] = [
  { name: 'a 20 MB thrown error', output: before("throw new Error('e'.repeat(20e6));"), failure: 'execution.error' },
  { name: 'a 20 MB error thrown as a string', output: before("throw 's'.repeat(20e6);"), failure: 'execution.error' },
  { name: 'a 5 MB console entry before the right request', output: before("console.log('l'.repeat(5e6));"), failure: 'passed' },
  { name: 'a 1 MB URL', output: `\`\`\`javascript\naxios.get('${url}/' + 'u'.repeat(1e6), ${auth});\n\`\`\``, failure: 'arguments.invalid' },
  { name: 'a 1 MB params value', output: withParams("{ parent: 'p'.repeat(1e6), limit: 50 }"), failure: 'result.wrong' },
  { name: 'a 5 MB body', output: posting("{ text: 'b'.repeat(5e6) }"), failure: 'arguments.invalid' },
];

const earlier: HostileAnswer[] = [
  { name: 'an endless loop', output: before('while (true) {}'), failure: limit },
  { name: 'an endless loop that catches', output: before('for (;;) { try { while (true) {} } catch (e) {} }'), failure: limit },
  { name: 'deep recursion', output: withParams('(function f() { return f() })()'), failure: limit },
  { name: "require('fs')", output: withParams("require('fs').readFileSync('/etc/passwd', 'utf8')"), failure: 'execution.error' },
  { name: 'a constructor escape', output: withParams("globalThis.constructor.constructor('return process')().version"), failure: 'execution.error' },
  { name: 'process.exit()', output: before('process.exit(1);'), failure: 'execution.error' },
  { name: 'a syntax error', output: withParams('{{'), failure: 'output.unparsable' },
  { name: 'no axios call', output: 'I cannot help with that.', failure: 'output.unparsable' },
  { name: 'an endless microtask chain', output: before("const again = () => Promise.resolve()['then'](again); again(); while (true) {}"), failure: limit },
  { name: 'a runaway built-in', output: before('const a = []; while (true) a.push(new Array(1e5).fill(1));'), failure: limit },
  { name: 'tampered toJSON under the host protocol', output: before("Object.prototype.toJSON = function () { return 'forged' };"), failure: 'execution.error' },
  { name: 'an error whose getter never returns', output: before('throw { get message() { for (;;) {} } };'), failure: 'execution.error' },
];

export const hostileWebapiAnswers: readonly HostileAnswer[] = [...nesting, ...memory, ...pollution, ...outputSize, ...earlier];

/** Valid answers: the right call, and wrong ones whose scores are known. */
export const validWebapiAnswers: readonly HostileAnswer[] = [
  { name: 'the right call', output: withParams(goodParams), failure: 'passed' },
  { name: 'a wrong value', output: withParams("{ parent: '159874', limit: '50' }"), failure: 'result.wrong' },
  { name: 'an illegal argument', output: withParams("{ parent: '159874', limit: 50, colour: 'red' }"), failure: 'arguments.invalid' },
  { name: 'the right call with a form-encoded body elsewhere', output: before("const form = new URLSearchParams(); form.append('c[d]', 'x'); String(form);"), failure: 'passed' },
];

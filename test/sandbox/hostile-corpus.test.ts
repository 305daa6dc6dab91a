/**
 * Issue 14 containment, at the sandbox: every hostile program of the corpus ends with its verdict on its first
 * run (never a SandboxError), valid programs run between them give the same results as alone, the engine prints
 * nothing on stderr, and after polluting programs a worker behaves exactly as a fresh one for 100 programs.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSandbox } from '../../src/sandbox/index.ts';
import type { Sandbox, SandboxProgram } from '../../src/sandbox/spec.ts';
import { comparable, hostilePrograms, pollutingFormBody, validPrograms } from './hostile-programs.ts';

/**
 * Captures what is written to stderr (sandbox workers' output arrives here) while `action` runs; `action` gets
 * the chunks so far, to tell which program was running when noise appeared.
 */
async function capturingStderr<T>(action: (chunks: readonly string[]) => Promise<T>): Promise<{ value: T; stderr: string }> {
  const chunks: string[] = [];
  const original = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(String(chunk));
    return (original as (...args: unknown[]) => boolean).call(process.stderr, chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    const value = await action(chunks);
    // Worker output reaches the main thread asynchronously.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { value, stderr: chunks.join('') };
  } finally {
    process.stderr.write = original;
  }
}

async function runAlone(programs: readonly SandboxProgram[]): Promise<unknown[]> {
  const fresh = createSandbox({ poolSize: 1 });
  try {
    const results: unknown[] = [];
    for (const program of programs) results.push(comparable(await fresh.run(program)));
    return results;
  } finally {
    await fresh.dispose();
  }
}

describe('the hostile corpus', () => {
  const sandboxes: Sandbox[] = [];
  after(async () => {
    await Promise.all(sandboxes.map((sandbox) => sandbox.dispose()));
  });

  test('covers every kind of issue 14 the sandbox owns', () => {
    const kinds = new Set(hostilePrograms.map((program) => program.kind));
    assert.deepEqual([...kinds].sort(), ['earlier', 'memory', 'nesting', 'output-size', 'pollution']);
    assert.ok(hostilePrograms.length >= 70, `${hostilePrograms.length} programs`);
  });

  test('each hostile program ends with its verdict on its first run; valid programs between them are unchanged; no engine noise', async () => {
    const alone = await runAlone(validPrograms);
    // One worker, so each valid program runs right after a hostile one on the same worker (unless it was replaced).
    const sandbox = createSandbox({ poolSize: 1, backstopGraceMs: 300 });
    sandboxes.push(sandbox);
    const { value: problems, stderr } = await capturingStderr(async (chunks) => {
      const found: string[] = [];
      let seenChunks = 0;
      for (const [index, hostile] of hostilePrograms.entries()) {
        if (chunks.length > seenChunks) found.push(`stderr output around '${hostilePrograms[index - 1]?.name}': ${chunks.slice(seenChunks).join('').slice(0, 200)}`);
        seenChunks = chunks.length;
        try {
          const result = await sandbox.run(hostile.program);
          if (result.status !== hostile.status && result.status !== hostile.alsoAccepted) {
            found.push(`${hostile.name}: expected ${hostile.status}, got ${result.status} ${JSON.stringify(result).slice(0, 300)}`);
          } else {
            try {
              hostile.check?.(result);
            } catch (error) {
              found.push(`${hostile.name}: ${(error as Error).message}`);
            }
          }
        } catch (error) {
          found.push(`${hostile.name}: run() rejected (infrastructure): ${(error as Error).message.slice(0, 300)}`);
        }
        const validIndex = index % validPrograms.length;
        const valid = comparable(await sandbox.run(validPrograms[validIndex]));
        try {
          assert.deepEqual(valid, alone[validIndex]);
        } catch {
          found.push(`valid program ${validIndex} after '${hostile.name}' changed: ${JSON.stringify(valid).slice(0, 300)}`);
        }
      }
      return found;
    });
    assert.deepEqual(problems, []);
    assert.equal(stderr, '', 'the engine printed nothing');
  });

  test('after polluting programs, the next 100 programs on the same worker behave exactly as on a fresh worker', async () => {
    const probes: SandboxProgram[] = Array.from({ length: 100 }, (_, index) => {
      const forms = [`c[e]=${index}`, `url=${index}&c[d]=x`, `kind[]=${index}&kind[]=k`, `item[c][d]=${index}`, `x=${index}`];
      const variants = [
        `await axios.post('https://x.test/p/${index}', '${forms[index % forms.length]}'); return ({}).c === undefined;`,
        `await fetch('https://x.test/q', { method: 'POST', body: '${forms[(index + 1) % forms.length]}' }); return Object.keys({});`,
        `await axios.get('https://x.test/r', { params: { c: ${index}, url: 'u' } }); const found = []; for (const key in {}) found.push(key); return found;`,
        `await axios.post('https://x.test/s', { c: { d: ${index} }, kind: 'k' }); return [typeof Object.prototype.polluted, [1, 2].map((x) => x + ${index})];`,
      ];
      return { code: variants[index % variants.length], seed: index };
    });
    const polluted = createSandbox({ poolSize: 1 });
    sandboxes.push(polluted);
    for (const hostile of hostilePrograms.filter((program) => program.kind === 'pollution')) {
      assert.equal((await polluted.run(hostile.program)).status, hostile.status, hostile.name);
    }
    const afterPollution: unknown[] = [];
    for (const probe of probes) afterPollution.push(comparable(await polluted.run(probe)));
    const fresh = await runAlone(probes);
    assert.deepEqual(afterPollution, fresh);
    // The probes do exercise what a polluted decoder would break.
    assert.deepEqual((fresh[8] as { requests: { data: unknown }[] }).requests[0].data, { item: { c: { d: '8' } } });
    assert.ok(pollutingFormBody.includes('__proto__[c][d]'));
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { ConfigError } from '../../src/core/errors.ts';
import { streamGeneratedTasks } from '../../src/runner/generate-tasks.ts';
import { generateTaskJsonl, generateTaskLines } from '../../src/runner/parallel-generation.ts';
import type { TaskLinesOptions } from '../../src/runner/parallel-generation.ts';
import { funcgenSuite } from '../../src/suites/funcgen/index.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import type { Suite } from '../../src/suites/spec.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';

const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, { core: '4', connected: '1', disconnected: '1' });

async function collect(suite: Suite, options: TaskLinesOptions): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of generateTaskLines(suite, options)) lines.push(line);
  return lines;
}

async function oneThreadLines(options: TaskLinesOptions): Promise<string[]> {
  const lines: string[] = [];
  for await (const task of streamGeneratedTasks(funcgenSuite, options)) lines.push(JSON.stringify(task));
  return lines;
}

describe('generation on several threads', () => {
  test('makes the same lines, in the same order, as one thread (ranges of 256: the last one short)', async () => {
    const options = { seed: 5, count: 700, params, validate: false };
    const expected = await oneThreadLines(options);
    assert.equal(expected.length, 700);
    for (const threads of [2, 3]) assert.deepEqual(await collect(funcgenSuite, { ...options, threads }), expected, `threads: ${threads}`);
  });

  test('hands on each range as its bytes, one line per task, each ending in a newline', async () => {
    const chunks: { text: string; lines: number }[] = [];
    for await (const item of generateTaskJsonl(funcgenSuite, { seed: 1, count: 300, params, validate: false, threads: 2 })) {
      assert.notEqual(typeof item, 'string');
      if (typeof item !== 'string') chunks.push({ text: Buffer.from(item.bytes).toString('utf8'), lines: item.lines });
    }
    assert.deepEqual(chunks.map((chunk) => chunk.lines), [256, 44]);
    for (const chunk of chunks) {
      assert.ok(chunk.text.endsWith('\n'));
      assert.equal(chunk.text.split('\n').length - 1, chunk.lines);
    }
  });

  test('reuseBytes: each range is filled again once written (its bytes detached when the next is asked for), the lines the same', async () => {
    const options = { seed: 4, count: 1100, params, validate: false, threads: 2 };
    const text = async (reuseBytes: boolean): Promise<string> => {
      let all = '';
      let previous: Uint8Array | undefined;
      for await (const item of generateTaskJsonl(funcgenSuite, { ...options, reuseBytes })) {
        if (typeof item === 'string') throw new Error('a range came as a string');
        // Handed back by now: a reader who kept it would see it empty rather than overwritten.
        if (previous) assert.equal(previous.byteLength, reuseBytes ? 0 : previous.byteLength);
        all += Buffer.from(item.bytes).toString('utf8');
        previous = item.bytes;
      }
      return all;
    };
    const kept = await text(false);
    assert.equal(kept.split('\n').length - 1, 1100);
    assert.equal(await text(true), kept);
  });

  test('checks each task with builtin/oracle on its thread, and starts at `from`', async () => {
    const options = { seed: 2, count: 600, params, from: 100 };
    const expected = await oneThreadLines(options);
    assert.equal(expected.length, 500);
    assert.deepEqual(await collect(funcgenSuite, { ...options, threads: 2 }), expected);
  });

  test("a thread's error reaches the caller with its class, code and fix", async () => {
    const bad = { ...params, core: 0 };
    const oneThread = await oneThreadLines({ seed: 0, count: 300, params: bad }).then(() => undefined, (error: unknown) => error);
    assert.ok(oneThread instanceof ConfigError, `one thread: ${String(oneThread)}`);
    await assert.rejects(collect(funcgenSuite, { seed: 0, count: 300, params: bad, threads: 2 }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.code, oneThread.code);
      assert.equal(error.message, oneThread.message);
      assert.equal(error.fix, oneThread.fix);
      return true;
    });
  });

  test('a consumer that stops early stops the threads (the process is not held open)', async () => {
    let seen = 0;
    for await (const line of generateTaskLines(funcgenSuite, { seed: 0, count: 5000, params, validate: false, threads: 2 })) {
      assert.ok(line.startsWith('{'));
      seen += 1;
      if (seen === 3) break;
    }
    assert.equal(seen, 3);
  });

  test('an aborted signal ends the stream without an error', async () => {
    const stop = new AbortController();
    let seen = 0;
    for await (const item of generateTaskJsonl(funcgenSuite, { seed: 0, count: 5000, params, validate: false, threads: 2, signal: stop.signal })) {
      seen += typeof item === 'string' ? 1 : item.lines;
      stop.abort();
    }
    assert.equal(seen, 256);
  });

  test('a suite that does not make its tasks by index is made on this thread, whatever `threads` says', async () => {
    const suite = createFakeSuite();
    const expected: string[] = [];
    for await (const task of streamGeneratedTasks(suite, { seed: 0, count: 5, params: {} })) expected.push(JSON.stringify(task));
    const items: unknown[] = [];
    for await (const item of generateTaskJsonl(suite, { seed: 0, count: 5, params: {}, threads: 4 })) items.push(item);
    assert.deepEqual(items, expected);
  });

  test('more threads than cores asked of the library start one per core, and make the same lines', async () => {
    const ports = () => process.getActiveResourcesInfo().filter((resource) => resource === 'MessagePort').length;
    const before = ports();
    const options = { seed: 3, count: 600, params, validate: false };
    const lines: string[] = [];
    let during = 0;
    for await (const line of generateTaskLines(funcgenSuite, { ...options, threads: availableParallelism() + 5 })) {
      if (lines.length === 1) during = ports() - before;
      lines.push(line);
    }
    // A generation thread holds one message port while it runs.
    assert.equal(during, Math.min(availableParallelism(), 3));
    assert.deepEqual(lines, await oneThreadLines(options));
  });

  test('threads must be a whole number from 1', async () => {
    for (const threads of [0, -1, 1.5, Number.NaN]) {
      await assert.rejects(collect(funcgenSuite, { seed: 0, count: 5, params, threads }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.code, 'config.invalid');
        assert.match(error.message, /threads must be a whole number from 1/);
        return true;
      });
    }
  });
});

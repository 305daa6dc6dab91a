import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import { writeOutputLines } from '../../src/cli/write-output-lines.ts';
import { Interrupted, stopSignals } from '../../src/cli/stop-signals.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { temporaryDirectory } from '../e2e/run-cli.ts';

function io(cwd: string, stdout: string[] = []): CliIo {
  return { stdout: (text) => { stdout.push(text); }, stderr: () => {}, isStderrTty: false, env: {}, cwd };
}

/**
 * 1,000 lines of 64 KB (written in chunks of ~1 MB), sending `signal` to this process once `after` lines were taken:
 * a writer that ignored the signal would write all 64 MB and resolve.
 */
async function* manyLines(signal: string, after: number): AsyncGenerator<string> {
  const line = 'x'.repeat(1 << 16);
  for (let taken = 0; taken < 1000; taken += 1) {
    if (taken === after) process.emit(signal as 'SIGINT');
    yield line;
  }
}

for (const signal of stopSignals) {
  test(`${signal} while lines are written to --out stops after the chunk being written and leaves no file, partial or whole`, async () => {
    const directory = temporaryDirectory();
    await assert.rejects(writeOutputLines(io(directory), 'out.jsonl', manyLines(signal, 40)), (error: unknown) => {
      assert.ok(error instanceof Interrupted);
      assert.equal(error.message, 'out.jsonl was not written; run the command again');
      return true;
    });
    assert.deepEqual(readdirSync(directory), []);
    assert.equal(process.listenerCount(signal), 0, 'the handler is removed');
  });
}

test('SIGINT while lines go to stdout stops them there: what was written stands', async () => {
  const written: string[] = [];
  await assert.rejects(writeOutputLines(io(temporaryDirectory(), written), undefined, manyLines('SIGINT', 20)), Interrupted);
  assert.ok(written.length >= 1 && written.length <= 3, `${written.length} chunks of ~1 MB written`);
});

test('lines written to the end are renamed into place, and no stop handler is left behind', async () => {
  const directory = temporaryDirectory();
  const result = await writeOutputLines(io(directory), 'out.jsonl', ['{"a":1}', '{"b":2}']);
  assert.equal(result.lines, 2);
  assert.equal(readFileSync(`${directory}/out.jsonl`, 'utf8'), '{"a":1}\n{"b":2}\n');
  assert.deepEqual(readdirSync(directory), ['out.jsonl']);
  for (const signal of stopSignals) assert.equal(process.listenerCount(signal), 0);
});

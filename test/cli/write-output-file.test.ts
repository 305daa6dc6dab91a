import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeOutputFile } from '../../src/cli/write-output-file.ts';
import { Interrupted, stopSignals } from '../../src/cli/stop-signals.ts';
import { temporaryDirectory } from '../e2e/run-cli.ts';

for (const signal of stopSignals) {
  test(`${signal} while a report is written to --out removes the partial file and keeps the file already there`, async () => {
    const directory = temporaryDirectory();
    writeFileSync(join(directory, 'report.html'), 'the last report');
    const writing = writeOutputFile(directory, 'report.html', 'x'.repeat(64 << 20));
    // The signal arrives while the file is being written: before, Node's default ended the process there.
    process.emit(signal as 'SIGINT');
    await assert.rejects(writing, (error: unknown) => {
      assert.ok(error instanceof Interrupted);
      assert.equal(error.message, 'report.html was not written; run the command again');
      return true;
    });
    assert.deepEqual(readdirSync(directory), ['report.html']);
    assert.equal(readFileSync(join(directory, 'report.html'), 'utf8'), 'the last report');
    assert.equal(process.listenerCount(signal), 0, 'the handler is removed');
  });
}

test('a sweep report interrupted says what is kept and how to write the report', async () => {
  const directory = temporaryDirectory();
  const writing = writeOutputFile(directory, 'sweep.md', 'x'.repeat(1 << 20), "the sweep's runs are stored: write the report with toolforge report --sweep g1 --out <file>");
  process.emit('SIGTERM');
  await assert.rejects(writing, /sweep\.md was not written; the sweep's runs are stored: write the report with toolforge report --sweep g1/);
  assert.deepEqual(readdirSync(directory), []);
});

test('written whole when no signal comes, and the handlers are removed', async () => {
  const directory = temporaryDirectory();
  const path = await writeOutputFile(directory, 'report.json', '{"ok":true}\n');
  assert.equal(path, join(directory, 'report.json'));
  assert.equal(readFileSync(path, 'utf8'), '{"ok":true}\n');
  assert.deepEqual(readdirSync(directory), ['report.json']);
  for (const signal of stopSignals) assert.equal(process.listenerCount(signal), 0);
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const directory = mkdtempSync(join(tmpdir(), 'toolforge-module-worker-'));
after(() => rmSync(directory, { recursive: true, force: true }));
const moduleWorker = pathToFileURL(join(import.meta.dirname, '../../src/core/module-worker.ts')).href;

/** Starts a plain-JavaScript worker through startModuleWorker in a child node started with `flags`; its output. */
function startWorkerUnder(flags: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  writeFileSync(join(directory, 'echo-worker.js'), "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage('worker ran');\n");
  const base = pathToFileURL(join(directory, 'caller.js')).href;
  const script = `const { startModuleWorker } = await import(${JSON.stringify(moduleWorker)});
const worker = startModuleWorker(${JSON.stringify(base)}, './echo-worker', {});
worker.on('message', (message) => { console.log(message); worker.terminate(); });`;
  const child = spawnSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: join(import.meta.dirname, '../..') });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

test('a worker starts under node flags a worker thread refuses (node --trace-gc ...): they are dropped for it', () => {
  const plain = startWorkerUnder([]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /worker ran/);
  const traced = startWorkerUnder(['--trace-gc']);
  assert.equal(traced.status, 0, traced.stderr);
  assert.match(traced.stdout, /worker ran/);
  assert.doesNotMatch(traced.stderr, /ERR_WORKER_INVALID_EXEC_ARGV/);
});

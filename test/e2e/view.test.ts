import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { binPath, keylessEnvironment, runCli, temporaryDirectory } from './run-cli.ts';

test('view serves the report on 127.0.0.1 until Ctrl-C, then exits 0', async () => {
  const directory = temporaryDirectory();
  assert.equal((await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '2', '--json'], { cwd: directory })).code, 0);
  const child = spawn(process.execPath, [binPath, 'view', '--port', '0'], { cwd: directory, env: keylessEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.on('close', () => reject(new Error(`view exited early: ${stderr}`)));
  });
  const page = await fetch(url);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<table id="runs">/);
  child.kill('SIGINT');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
});

test('view without a database names the fix', async () => {
  const result = await runCli(['view', '--port', '0'], { cwd: temporaryDirectory() });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /no results database at .*\n {2}fix: run 'toolforge run/);
});

// Node 20's test runner does not expand globs, so the file list is built here. Tests live under test/ only,
// mirroring src/ (src/agents/x.ts is tested by test/agents/*.test.ts); a *.test.ts under src/ is an error.
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(directory) {
  const files = [];
  for (const entry of readdirSync(directory)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) files.push(...collect(path));
    else if (entry.endsWith('.test.ts')) files.push(path);
  }
  return files;
}

function collectSources(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? collectSources(path) : [path];
  });
}

const misplaced = collect('src');
if (misplaced.length > 0) {
  console.error(`tests live under test/ (mirroring src/), not under src/: move ${misplaced.join(', ')}`);
  process.exit(1);
}
const filter = process.argv.slice(2);
const files = collect('test').sort()
  .filter((file) => filter.length === 0 || filter.some((part) => file.includes(part)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// test/e2e/package.test.ts and the library test import the built package: rebuild dist/ when a source is newer.
const newestSource = Math.max(...collectSources('src').map((file) => statSync(file).mtimeMs));
const built = (() => { try { return statSync('dist/build-complete').mtimeMs; } catch { return 0; } })();
if (built < newestSource) {
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Every folder and database the tests make goes under one temporary folder, removed when they end (a full run makes
// ~370 of them, up to 1.2 GB, which piled up in /tmp run after run). TOOLFORGE_KEEP_TEST_FILES=1 keeps it to look into.
const scratch = mkdtempSync(join(tmpdir(), 'toolforge-tests-'));
// Open to every user as /tmp is: the PostgreSQL tests run the server as an unprivileged user, who must reach its folder.
chmodSync(scratch, 0o1777);
const keep = process.env.TOOLFORGE_KEEP_TEST_FILES === '1';
// Ctrl-C reaches the tests too; with a listener this process outlives them and still removes the folder.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => {});
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit', env: { ...process.env, TMPDIR: scratch },
});
if (keep) console.error(`test files kept in ${scratch}`);
else rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
process.exit(result.status ?? 1);

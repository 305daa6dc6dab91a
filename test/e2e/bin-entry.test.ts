/**
 * bin/toolforge.js picks what to run: in a checkout, dist/ while its build stamp is newer than every source
 * (the built package starts faster and its sandbox workers do not load tsx), else the sources through tsx; an
 * installed package (no src/) always runs dist/. Checked on a copy of the launcher beside stub entries.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { repositoryRoot } from '../../src/core/data-location.ts';
import { temporaryDirectory } from './run-cli.ts';

function checkout(options: { source: boolean; built: boolean }): string {
  const root = temporaryDirectory();
  mkdirSync(join(root, 'bin'));
  copyFileSync(resolve(repositoryRoot, 'bin', 'toolforge.js'), join(root, 'bin', 'toolforge.js'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  symlinkSync(resolve(repositoryRoot, 'node_modules'), join(root, 'node_modules'));
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  writeFileSync(join(root, 'dist', 'cli', 'main.js'), 'export async function main() { process.stdout.write("built"); return 0; }\n');
  if (options.source) {
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    writeFileSync(join(root, 'src', 'cli', 'main.ts'), 'export async function main(): Promise<number> { process.stdout.write("source"); return 0; }\n');
  }
  if (options.built) writeFileSync(join(root, 'dist', 'build-complete'), '');
  return root;
}

const launch = (root: string, env: Record<string, string> = {}): string =>
  execFileSync(process.execPath, [join(root, 'bin', 'toolforge.js')], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });

test('an installed package (no src/) runs dist/', () => {
  assert.equal(launch(checkout({ source: false, built: false })), 'built');
});

test('a checkout runs dist/ while its build stamp is newer than every source, else the sources', () => {
  const root = checkout({ source: true, built: true });
  const stamp = join(root, 'dist', 'build-complete');
  const source = join(root, 'src', 'cli', 'main.ts');
  utimesSync(source, new Date(1_000_000), new Date(1_000_000));
  utimesSync(stamp, new Date(2_000_000), new Date(2_000_000));
  assert.equal(launch(root), 'built');
  assert.equal(launch(root, { TOOLFORGE_FROM_SOURCE: '1' }), 'source');
  // An edit after the build: the sources run, so an edit needs no rebuild.
  utimesSync(source, new Date(3_000_000), new Date(3_000_000));
  assert.equal(launch(root), 'source');
});

test('an interrupted build (no stamp) is never run from a checkout', () => {
  assert.equal(launch(checkout({ source: true, built: false })), 'source');
});

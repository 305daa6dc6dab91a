/**
 * The package as a user installs it: `npm pack`, unpacked into a fresh project's node_modules next to the
 * runtime dependencies (and without tsx), imported from plain Node and run through its bin.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '../../src/core/data-location.ts';
import { temporaryDirectory } from './run-cli.ts';

/** Development-only packages: the installed package must run without them. */
const developmentOnly = new Set(['tsx', 'typescript', '.bin', '.package-lock.json']);

test('the packed package imports from plain Node without tsx, runs an evaluation and a sandboxed program, and ships no tests', () => {
  const directory = temporaryDirectory();
  // scripts/run-tests.mjs rebuilt dist/ if a source was newer; packing must not rebuild it again.
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', directory], {
    cwd: repositoryRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'],
  })) as { filename: string; files: { path: string }[] }[];
  const files = packed[0].files.map((file) => file.path);
  assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts') && files.includes('bin/toolforge.js'));
  assert.ok(files.includes('dist/sandbox/prelude/runtime.js'), 'the sandbox prelude is shipped');
  assert.deepEqual(files.filter((path) => /^(test|bench|src|scripts)\//.test(path) || path.endsWith('.test.js')), []);

  const project = join(directory, 'project');
  const modules = join(project, 'node_modules');
  mkdirSync(modules, { recursive: true });
  execFileSync('tar', ['-xzf', join(directory, packed[0].filename), '-C', directory]);
  renameSync(join(directory, 'package'), join(modules, 'toolforge'));
  for (const entry of readdirSync(join(repositoryRoot, 'node_modules'))) {
    if (!developmentOnly.has(entry)) symlinkSync(join(repositoryRoot, 'node_modules', entry), join(modules, entry));
  }

  const script = `
    const toolforge = await import('toolforge');
    const suite = toolforge.getSuite('funcgen');
    const params = toolforge.resolveKnobs(suite.id, suite.knobs, { core: '4', depth: '2' });
    const tasks = await toolforge.generateTasks(suite, { seed: 1, count: 3, params });
    const summary = await toolforge.runEvaluation({ suite, tasks, modelRef: 'builtin/planner', seed: 1, params, dbPath: 'results.db' });
    const sandbox = toolforge.createSandbox({ poolSize: 1 });
    const result = await sandbox.run({ code: 'return 6 * 7;' });
    await sandbox.dispose();
    const sandboxed = result.value;
    let tsx = 'absent';
    try { await import('tsx'); tsx = 'present'; } catch {}
    console.log(JSON.stringify({ passRate: summary.passRate, sandboxed, tsx }));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' });
  const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as { passRate: number; sandboxed: unknown; tsx: string };
  assert.deepEqual(result, { passRate: 1, sandboxed: 42, tsx: 'absent' });

  const suites = execFileSync(process.execPath, [join(modules, 'toolforge', 'bin', 'toolforge.js'), 'suites'], { cwd: project, encoding: 'utf8' });
  assert.match(suites, /^funcgen \(version /m);
});

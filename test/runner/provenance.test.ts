import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectProvenance } from '../../src/runner/provenance.ts';
import type { ProvenanceInput } from '../../src/runner/provenance.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { temporaryDirectory } from './test-helpers.ts';

const input: ProvenanceInput = {
  suite: createFakeSuite(), modelRef: 'builtin/oracle', baseUrl: null, settings: { temperature: 0.2 }, seed: 3,
  params: { depth: 2 }, mode: 'calls', trials: 2, cliArgs: ['run', 'fake-sum'],
};

test('provenance records versions, configuration and CLI arguments', () => {
  const provenance = collectProvenance(input, { directory: temporaryDirectory() });
  assert.equal(provenance.toolforgeVersion, '0.1.0');
  assert.equal(provenance.nodeVersion, process.version);
  assert.equal(provenance.platform, `${process.platform}-${process.arch}`);
  assert.deepEqual(provenance.suite, { id: 'fake-sum', version: '1' });
  assert.deepEqual(provenance.model, { ref: 'builtin/oracle', baseUrl: null, settings: { temperature: 0.2 } });
  assert.deepEqual([provenance.seed, provenance.params, provenance.mode, provenance.trials, provenance.cliArgs], [3, { depth: 2 }, 'calls', 2, ['run', 'fake-sum']]);
});

test('outside a git checkout the git state is null, not an error', () => {
  assert.equal(collectProvenance(input, { directory: temporaryDirectory() }).git, null);
});

test('in a git checkout the commit and the dirty flag are recorded', (context) => {
  const directory = temporaryDirectory();
  const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: directory, encoding: 'utf8' }).trim();
  try {
    git('init', '-q');
  } catch {
    context.skip('git is not installed');
    return;
  }
  writeFileSync(join(directory, 'file.txt'), 'one');
  git('add', 'file.txt');
  git('commit', '-q', '-m', 'first');
  const commit = git('rev-parse', 'HEAD');
  assert.deepEqual(collectProvenance(input, { directory }).git, { commit, isDirty: false });
  writeFileSync(join(directory, 'file.txt'), 'two');
  assert.deepEqual(collectProvenance(input, { directory }).git, { commit, isDirty: true });
});

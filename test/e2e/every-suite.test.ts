import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listSuites } from '../../src/suites/registry.ts';
import { runCli, temporaryDirectory } from './run-cli.ts';
import { fixturePath, requireData } from '../require-data.ts';

/** Without the public WAPIIBench data, webapi runs on the hand-written fixture task file instead of its 395 default tasks. */
const dataArguments: Record<string, string[]> = {
  ...(requireData('wapiibench') ? { webapi: ['--set', `data=${fixturePath('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json')}`] } : {}),
  // Without the public StableToolBench data, toolbench runs on the four hand-written fixture queries.
  ...(requireData('stabletoolbench', 'solvable_queries', 'test_instruction') ? { toolbench: ['--set', `data=${fixturePath('stabletoolbench', 'solvable_queries', 'test_instruction', 'G1_instruction.json')}`] } : {}),
};

/** The self-check through the CLI for every registered suite: oracle 100%, random near 0, same seed same bytes. */
for (const suite of listSuites()) {
  describe(`suite ${suite.id} through the CLI`, () => {
    const directory = temporaryDirectory();
    const data = dataArguments[suite.id] ?? [];

    test('builtin/oracle passes every task', async () => {
      const result = await runCli(['run', suite.id, '--model', 'builtin/oracle', '--count', '4', '--json', ...data], { cwd: directory });
      assert.equal(result.code, 0, result.stderr);
      const summary = JSON.parse(result.stdout) as { passRate: number; episodes: number; suite: string; mode: string };
      assert.equal(summary.suite, suite.id);
      assert.equal(summary.mode, suite.modes[0]);
      assert.equal(summary.episodes, 4);
      assert.equal(summary.passRate, 1);
    });

    test('builtin/random scores near 0', { skip: !Object.hasOwn(suite.builtinModels, 'random') }, async () => {
      const result = await runCli(['run', suite.id, '--model', 'builtin/random', '--count', '4', '--json', ...data], { cwd: directory });
      assert.equal(result.code, 0, result.stderr);
      assert.ok((JSON.parse(result.stdout) as { passRate: number }).passRate <= 0.25);
    });

    test('generate is byte-identical for the same seed', async () => {
      const args = ['generate', suite.id, '--seed', '3', '--count', '3', '--no-validate', ...data];
      const first = await runCli(args, { cwd: directory });
      assert.equal(first.code, 0, first.stderr);
      assert.equal((await runCli(args, { cwd: directory })).stdout, first.stdout);
    });

    test('the html report of its runs renders', async () => {
      const result = await runCli(['report', '--format', 'html'], { cwd: directory });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /<svg/);
    });
  });
}

/**
 * `report <run> <run> ...`: the runs named, in the order given, each compared with the first given of its suite;
 * one run keeps its single-object JSON; a run named twice and runs with --sweep are refused.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, temporaryDirectory } from './run-cli.ts';

describe('report of named runs', () => {
  const directory = temporaryDirectory();
  const ids: Record<string, string> = {};

  before(async () => {
    for (const model of ['planner', 'random', 'noisy']) {
      const result = await runCli(['run', 'funcgen', '--model', `builtin/${model}`, '--count', '5', '--json'], { cwd: directory });
      assert.equal(result.code, 0, result.stderr);
      ids[model] = (JSON.parse(result.stdout) as { runId: string }).runId;
    }
  });

  test('two of three runs, in the order given: the first given is the baseline of the comparison', async () => {
    const result = await runCli(['report', ids.noisy, ids.planner, '--format', 'json'], { cwd: directory });
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { runs: { runId: string }[]; comparisons: { baselineRunId: string; treatmentRunId: string; pairs: number }[] };
    assert.deepEqual(report.runs.map((run) => run.runId), [ids.noisy, ids.planner]);
    assert.deepEqual(report.comparisons.map((comparison) => [comparison.baselineRunId, comparison.treatmentRunId, comparison.pairs]), [[ids.noisy, ids.planner, 5]]);
    const table = await runCli(['report', ids.random, ids.planner], { cwd: directory });
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, new RegExp(`^${ids.random} `, 'm'));
    assert.doesNotMatch(table.stdout, new RegExp(ids.noisy));
  });

  test('one run keeps the single-run JSON object', async () => {
    const result = await runCli(['report', ids.random, '--format', 'json'], { cwd: directory });
    assert.equal((JSON.parse(result.stdout) as { runId: string }).runId, ids.random);
  });

  test('a run named twice (even as latest and by id) and runs with --sweep are refused, naming the fix', async () => {
    const twice = await runCli(['report', ids.noisy, 'latest'], { cwd: directory });
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, new RegExp(`^error: run '${ids.noisy}' is named twice \\('${ids.noisy}' and 'latest'\\)\\n {2}fix: name each run once`));
    const withSweep = await runCli(['report', ids.noisy, ids.planner, '--sweep', 'latest'], { cwd: directory });
    assert.equal(withSweep.code, 2);
    assert.match(withSweep.stderr, /give runs or --sweep, not both/);
    const unknown = await runCli(['report', ids.noisy, 'no-such-run'], { cwd: directory });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no run 'no-such-run'/);
  });
});

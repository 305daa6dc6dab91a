/**
 * `report <run> <run> ...`: the runs named, in the order given, each compared with the first given of its suite;
 * one run keeps its single-object JSON; a run named twice and runs with --sweep are refused; a run in no comparison is
 * said to be, with why.
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

  test('a named run in no paired comparison is said to be (the only run of its suite, or no shared task), naming why; paired runs get no note', async () => {
    const other = await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2', '--seed', '9', '--json'], { cwd: directory });
    const otherSeed = (JSON.parse(other.stdout) as { runId: string }).runId;
    const nestful = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '2', '--json'], { cwd: directory });
    const nestfulRun = (JSON.parse(nestful.stdout) as { runId: string }).runId;
    const result = await runCli(['report', ids.planner, nestfulRun, otherSeed, ids.random], { cwd: directory });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, `note: not in the paired comparison: ${nestfulRun} is the only nestful run named; ${otherSeed} shares no task with the funcgen runs named before it (runs pair on the same tasks: the same suite, seed and knobs)\n`);
    const lone = await runCli(['report', otherSeed, ids.random, '--format', 'html'], { cwd: directory });
    assert.match(lone.stderr, new RegExp(`no other funcgen run named shares a task with ${otherSeed}; ${ids.random} shares no task`));
    assert.match(lone.stdout, /not in the paired comparison/);
    const paired = await runCli(['report', ids.noisy, ids.planner], { cwd: directory });
    assert.equal(paired.stderr, '');
  });
});

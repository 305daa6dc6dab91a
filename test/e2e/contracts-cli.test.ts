import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runCli, temporaryDirectory } from './run-cli.ts';

type Summary = { runId: string; passRate: number; episodes: number; metrics: Record<string, number>; rescoredFrom?: string };

describe('CLI: --transform, --keep-raw and rescore', () => {
  test('run --transform rename-tools: oracle 100%, recorded in the tasks; rescore gives the same figures; report pairs it with the baseline', async () => {
    const cwd = temporaryDirectory();
    const base = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '2', '--json'], { cwd });
    assert.equal(base.code, 0, base.stderr);
    const renamed = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '2', '--transform', 'rename-tools:style=suffix', '--keep-raw', '--json'], { cwd });
    assert.equal(renamed.code, 0, renamed.stderr);
    const summary = JSON.parse(renamed.stdout) as Summary;
    assert.equal(summary.passRate, 1);
    const exported = (await runCli(['export', summary.runId], { cwd })).stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as {
      type: string; task?: { id: string; origin?: { taskId: string } }; episode?: { raw?: unknown[]; calls: unknown[] }; run?: { provenance: { transforms?: unknown; keepRaw?: boolean } };
    });
    const tasks = exported.filter((line) => line.type === 'task');
    assert.deepEqual(tasks.map((line) => line.task?.origin?.taskId), ['funcgen/0/0', 'funcgen/0/1']);
    assert.ok(tasks.every((line) => line.task?.id.endsWith('~rename-tools')));
    const run = exported.find((line) => line.type === 'run')?.run;
    assert.deepEqual(run?.provenance.transforms, [{ id: 'rename-tools', version: '1', knobs: { style: 'suffix' } }]);
    assert.equal(run?.provenance.keepRaw, true);
    for (const line of exported.filter((candidate) => candidate.type === 'episode')) {
      assert.ok((line.episode?.raw?.length ?? 0) > 0, 'raw bodies kept');
      assert.ok((line.episode?.calls.length ?? 0) > 0, 'call record kept');
    }

    const rescore = await runCli(['rescore', summary.runId, '--json'], { cwd });
    assert.equal(rescore.code, 0, rescore.stderr);
    const rescored = JSON.parse(rescore.stdout) as Summary;
    assert.equal(rescored.rescoredFrom, summary.runId);
    assert.deepEqual({ passRate: rescored.passRate, episodes: rescored.episodes, metrics: rescored.metrics }, { passRate: summary.passRate, episodes: summary.episodes, metrics: summary.metrics });

    const report = await runCli(['report', '--format', 'table'], { cwd });
    assert.equal(report.code, 0, report.stderr);
    const baseRunId = (JSON.parse(base.stdout) as Summary).runId;
    // The rescore reports the transformed run's episodes (the run it was made from is left out, and the report says so).
    assert.match(report.stderr, new RegExp(`left out a run whose episodes a newer rescore reports: ${summary.runId} \\(rescored as ${rescored.runId}\\)`));
    const pairing = report.stdout.split('\n').find((line) => line.includes(baseRunId) && line.includes(rescored.runId));
    assert.ok(pairing, `no comparison of ${rescored.runId} with ${baseRunId}:\n${report.stdout}`);
    assert.match(pairing, /\s2\s/);
  });

  test('an unknown transform is refused before anything runs', async () => {
    const cwd = temporaryDirectory();
    const unknown = await runCli(['generate', 'funcgen', '--count', '1', '--transform', 'nope'], { cwd });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no transform 'nope'[\s\S]*fix: use one of: identity, rename-tools/);
  });
});

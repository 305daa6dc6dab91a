import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { mcnemarExactPValue } from '../../src/metrics/mcnemar-test.ts';
import { startReportServer } from '../../src/report/report-server.ts';
import { runCli, temporaryDirectory } from './run-cli.ts';

type Paired = {
  runId: string; passRate: number; baselineRunId: string;
  paired: { transforms: string; baseline: { passRate: number }; treatment: { passRate: number }; flips: { pairs: number; passToFail: string[]; failToPass: string[]; mcnemarPValue: number }; groups: { group: string }[] };
};

describe('CLI: run --transform ... --baseline and the paired report', () => {
  test('drift with builtin/oracle and with replayed old gold: two linked runs, flips and McNemar in run and report (table, html chart, json)', async () => {
    const cwd = temporaryDirectory();
    const oracle = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '3', '--mode', 'calls', '--transform', 'drift:op=all', '--baseline', '--json'], { cwd });
    assert.equal(oracle.code, 0, oracle.stderr);
    const summary = JSON.parse(oracle.stdout) as Paired;
    assert.equal(summary.passRate, 1);
    assert.notEqual(summary.baselineRunId, summary.runId);
    assert.equal(summary.paired.transforms, 'drift:op=all,probability=0.99');
    assert.deepEqual([summary.paired.flips.pairs, summary.paired.flips.passToFail, summary.paired.flips.failToPass, summary.paired.flips.mcnemarPValue], [3, [], [], 1]);
    assert.ok(summary.paired.groups.some((group) => group.group === 'drift:endpoint'));

    // The oracle's old-schema calls, replayed under both ids: the baseline passes, the drifted API refuses them.
    const exported = (await runCli(['export', summary.baselineRunId], { cwd })).stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as {
      type: string; episode?: { taskId: string; messages: { role: string; content: string; toolCalls?: { id: string; name: string; argumentsText: string }[] }[] };
    });
    const lines = exported.filter((line) => line.type === 'episode').flatMap(({ episode }) => {
      const turns = (episode?.messages ?? []).filter((message) => message.role === 'assistant')
        .map((message) => ({ content: message.content, toolCalls: (message.toolCalls ?? []).map(({ id, name, argumentsText }) => ({ id, name, argumentsText })) }));
      return [JSON.stringify({ taskId: episode?.taskId, turns }), JSON.stringify({ taskId: `${episode?.taskId}~drift`, turns })];
    });
    assert.equal(lines.length, 6);
    const replay = join(cwd, 'old-gold.jsonl');
    writeFileSync(replay, lines.join('\n'));
    const replayed = await runCli(['run', 'nestful', '--model', `replay/${replay}`, '--count', '3', '--mode', 'calls', '--transform', 'drift:op=endpoint', '--baseline', '--json'], { cwd });
    assert.equal(replayed.code, 0, replayed.stderr);
    const drop = JSON.parse(replayed.stdout) as Paired;
    assert.equal(drop.paired.baseline.passRate, 1);
    // Endpoint evolution (p 0.99) moved tools every gold sequence uses: every task flips pass -> fail.
    assert.deepEqual(drop.paired.flips.passToFail, ['nestful/0/0', 'nestful/0/1', 'nestful/0/2']);
    assert.equal(drop.paired.treatment.passRate, 0);
    assert.equal(drop.paired.flips.mcnemarPValue, mcnemarExactPValue(3, 0));
    assert.equal(drop.paired.flips.mcnemarPValue, 0.25);

    const table = await runCli(['report', '--format', 'table'], { cwd });
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /Transformed runs against their baselines/);
    const row = table.stdout.split('\n').find((line) => line.includes(drop.baselineRunId) && line.includes(drop.runId) && line.includes('drift:op=endpoint'));
    assert.ok(row, table.stdout);
    assert.match(row, /100\.0% \[43\.9%, 100\.0%\]\s+0\.0% \[0\.0%, 56\.1%\]\s+-100\.0%\s+3\s+0\s+0\.25/);
    assert.match(table.stdout, /nestful drift:op=endpoint,probability=0\.99: nestful\/0\/1 pass -> fail/);
    const html = await runCli(['report', '--format', 'html'], { cwd });
    assert.equal(html.code, 0, html.stderr);
    assert.match(html.stdout, /<h3>Transforms against their baselines<\/h3>[\s\S]*<svg[\s\S]*<\/svg>[\s\S]*<\/body>/);
    const json = await runCli(['report', drop.runId, '--format', 'json'], { cwd });
    assert.equal(json.code, 0, json.stderr);
    assert.equal(json.stdout.includes('transformPairs'), false, 'a single run has no baseline beside it');

    // The run lists and the viewer tell a transformed run from its baseline.
    const runs = await runCli(['runs'], { cwd });
    const listed = runs.stdout.split('\n');
    assert.match(listed[0], /\bmode\s+transforms\s+status\b/);
    assert.match(listed.find((line) => line.startsWith(drop.runId)) ?? '', /calls\s+drift:op=endpoint,probability=0\.99\s+finished/);
    assert.match(listed.find((line) => line.startsWith(drop.baselineRunId)) ?? '', /calls\s+-\s+finished/);
    const runsJson = JSON.parse((await runCli(['runs', '--json'], { cwd })).stdout) as { id: string; transforms: string | null }[];
    assert.equal(runsJson.find((run) => run.id === drop.runId)?.transforms, 'drift:op=endpoint,probability=0.99');
    assert.equal(runsJson.find((run) => run.id === drop.baselineRunId)?.transforms, null);
    const server = await startReportServer({ dbPath: join(cwd, '.toolforge', 'results.db'), port: 0 });
    try {
      const index = await (await fetch(server.url)).text();
      assert.match(index, /<th><a [^>]*>transforms<\/a><\/th>/);
      assert.match(index, new RegExp(`${drop.runId}[\\s\\S]*?<td>drift:op=endpoint,probability=0\\.99</td>`));
      const page = await (await fetch(`${server.url}runs/${drop.runId}`)).text();
      assert.match(page, /<p>Transforms: <b>drift:op=endpoint,probability=0\.99<\/b>/);
      assert.doesNotMatch(await (await fetch(`${server.url}runs/${drop.baselineRunId}`)).text(), /<p>Transforms:/);
    } finally {
      await server.close();
    }
  });

  test('a transformed run pairs with the untransformed run of its own model, never with another model\'s run on the same tasks', async () => {
    const cwd = temporaryDirectory();
    const ids: Record<string, string> = {};
    for (const transform of [[], ['--transform', 'rename-tools']]) {
      for (const model of ['oracle', 'random']) {
        const result = await runCli(['run', 'funcgen', '--model', `builtin/${model}`, '--count', '3', ...transform, '--json'], { cwd });
        assert.equal(result.code, 0, result.stderr);
        ids[`${model}${transform.length > 0 ? '+renamed' : ''}`] = (JSON.parse(result.stdout) as { runId: string }).runId;
      }
    }
    const report = JSON.parse((await runCli(['report', '--format', 'json'], { cwd })).stdout) as { transformPairs: { baseline: { runId: string }; treatment: { runId: string }; flips: { passToFail: string[]; failToPass: string[] } }[] };
    assert.deepEqual(report.transformPairs.map((pair) => [pair.baseline.runId, pair.treatment.runId]), [[ids.oracle, ids['oracle+renamed']], [ids.random, ids['random+renamed']]]);
    assert.deepEqual(report.transformPairs.map((pair) => [pair.flips.passToFail.length, pair.flips.failToPass.length]), [[0, 0], [0, 0]]);
  });

  test('--baseline without --transform is refused before anything runs', async () => {
    const cwd = temporaryDirectory();
    const refused = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '1', '--baseline'], { cwd });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--baseline runs the tasks with and without the --transform[\s\S]*fix: add --transform/);
  });
});

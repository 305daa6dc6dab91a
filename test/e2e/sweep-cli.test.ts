import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, temporaryDirectory } from './run-cli.ts';

describe('toolforge sweep', () => {
  test('runs the grid as one group, skips the invalid point, prints the difficulty report; report --sweep finds the group again', async () => {
    const directory = temporaryDirectory();
    const sweep = await runCli(['sweep', 'funcgen', '--grid', 'core=3,4', '--grid', 'depth=1,3', '--model', 'builtin/planner', '--model', 'builtin/noisy?p=0.5',
      '--count', '4', '--set', 'connected=1', '--set', 'disconnected=0', '--seed', '5'], { cwd: directory });
    assert.equal(sweep.code, 0, sweep.stderr);
    assert.match(sweep.stderr, /skipped core=3 depth=3: funcgen knob 'depth' is 3/);
    const group = /sweep (sweep-funcgen-\S+): 6 runs/.exec(sweep.stderr)?.[1];
    assert.ok(group, sweep.stderr);
    assert.match(sweep.stdout, /Accuracy by core \(funcgen/);
    assert.match(sweep.stdout, /Accuracy by depth \(funcgen/);
    assert.match(sweep.stdout, /Leaderboard/);
    assert.match(sweep.stdout, /tasks needed/);
    assert.doesNotMatch(sweep.stdout, /^run funcgen-/m, 'no per-run sections after a sweep');

    const json = JSON.parse((await runCli(['report', '--sweep', group, '--format', 'json'], { cwd: directory })).stdout) as {
      runs: { model: string; sweep: { group: string; point: Record<string, number> } }[]; difficulty: { axis: string; series: string[] }[];
    };
    assert.equal(json.runs.length, 6);
    assert.ok(json.runs.every((run) => run.sweep.group === group));
    assert.deepEqual(json.runs.map((run) => run.sweep.point), [{ core: 3, depth: 1 }, { core: 3, depth: 1 }, { core: 4, depth: 1 }, { core: 4, depth: 1 }, { core: 4, depth: 3 }, { core: 4, depth: 3 }]);
    assert.deepEqual(json.difficulty.map((curve) => [curve.axis, curve.series]), [['core', ['builtin/noisy?p=0.5', 'builtin/planner']], ['depth', ['builtin/noisy?p=0.5', 'builtin/planner']]]);
    const latest = await runCli(['report', '--sweep', 'latest', '--format', 'json'], { cwd: directory });
    assert.deepEqual(JSON.parse(latest.stdout), json);
  });

  test('--transform derives every point\'s tasks (robustness along a difficulty axis); one that asks a phrasing model is refused before anything is stored', async () => {
    const directory = temporaryDirectory();
    const sweep = await runCli(['sweep', 'funcgen', '--grid', 'core=4,6', '--model', 'builtin/planner', '--count', '5', '--transform', 'perturb:kind=case-mix', '--transform', 'drift:op=rename', '--db', 's.db'], { cwd: directory });
    assert.equal(sweep.code, 0, sweep.stderr);
    // The command that reports it again reads the database the sweep wrote.
    assert.match(sweep.stderr, /report it again with: toolforge report --sweep sweep-funcgen-\S+ --db s\.db\)/);
    const runs = JSON.parse((await runCli(['runs', '--json', '--db', 's.db'], { cwd: directory })).stdout) as { transforms: string; passRate: number; tasks: number }[];
    assert.equal(runs.length, 2);
    for (const run of runs) {
      assert.equal(run.transforms, 'perturb:kind=case-mix + drift:op=rename,probability=0.99');
      assert.equal(run.tasks, 5);
      assert.equal(run.passRate, 1);
    }
    assert.match(sweep.stdout, /perturb:kind=case-mix/);
    const refused = await runCli(['sweep', 'funcgen', '--grid', 'core=4,6', '--model', 'builtin/planner', '--transform', 'perturb:paraphrase', '--db', 'other.db'], { cwd: directory });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /perturb:paraphrase asks a phrasing model to rewrite every task, and a sweep has none/);
    assert.match(refused.stderr, /fix: run it on its own with toolforge run <suite> --transform perturb:paraphrase --phrasing-model <ref>/);
    assert.equal(existsSync(join(directory, 'other.db')), false);
    const twice = await runCli(['sweep', 'funcgen', '--grid', 'core=4,6', '--model', 'builtin/planner', '--transform', 'drift', '--transform', 'drift:op=type', '--db', 'other.db'], { cwd: directory });
    assert.equal(twice.code, 2, twice.stderr);
    assert.match(twice.stderr, /transform drift is given twice in the chain \(1st and 2nd\)/);
    assert.doesNotMatch(twice.stderr, /point 1\//, 'refused before the first point');
    assert.equal(existsSync(join(directory, 'other.db')), false);
  });

  test('a rescored run of the sweep replaces its original in the sweep\'s and the whole database\'s report, which say so', async () => {
    const directory = temporaryDirectory();
    const sweep = await runCli(['sweep', 'funcgen', '--grid', 'core=4,5', '--model', 'builtin/noisy?p=0.5', '--count', '10', '--seed', '3'], { cwd: directory });
    assert.equal(sweep.code, 0, sweep.stderr);
    const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: directory })).stdout) as { id: string }[];
    const original = runs[runs.length - 1].id;
    const rescored = await runCli(['rescore', original, '--json'], { cwd: directory });
    assert.equal(rescored.code, 0, rescored.stderr);
    const rescoreId = (JSON.parse(rescored.stdout) as { runId: string }).runId;
    const scoredAt = (report: string, core: number): number => {
      const { difficulty } = JSON.parse(report) as { difficulty: { axis: string; points: { level: unknown; scored: number }[] }[] };
      const curve = difficulty.find((candidate) => candidate.axis === 'core');
      return curve?.points.filter((point) => point.level === core).reduce((sum, point) => sum + point.scored, 0) ?? Number.NaN;
    };
    for (const args of [['report', '--sweep', 'latest', '--format', 'json'], ['report', '--format', 'json']]) {
      const report = await runCli(args, { cwd: directory });
      assert.equal(report.code, 0, report.stderr);
      assert.equal(scoredAt(report.stdout, 4), 10, `${args.join(' ')}: the 10 episodes at core=4 once, not twice`);
      assert.match(report.stderr, new RegExp(`note: left out a run whose episodes a newer rescore reports: ${original} \\(rescored as ${rescoreId}\\)`));
      assert.ok(!report.stdout.includes(`"runId": "${original}"`) && report.stdout.includes(rescoreId), args.join(' '));
    }
    const html = await runCli(['report', '--format', 'html'], { cwd: directory });
    assert.match(html.stdout, /<p class="note">Note: left out a run whose episodes a newer rescore reports/);
    // Named one by one, both are reported, side by side.
    const named = await runCli(['report', original, rescoreId, '--format', 'json'], { cwd: directory });
    assert.ok(named.stdout.includes(original) && named.stdout.includes(rescoreId));
    assert.doesNotMatch(named.stderr, /left out/);
  });

  test('a swept knob that is not a difficulty axis of the suite is charted too (the sweep asked for it)', async () => {
    const directory = temporaryDirectory();
    const sweep = await runCli(['sweep', 'funcgen', '--grid', 'restate=true,false', '--model', 'builtin/planner', '--count', '3'], { cwd: directory });
    assert.equal(sweep.code, 0, sweep.stderr);
    assert.match(sweep.stdout, /Accuracy by restate \(funcgen: the swept knob restate; Wilson 95% CI\)\nrestate +model +scored/);
    assert.match(sweep.stdout, /\nfalse +builtin\/planner +3 +3 +100\.0%/);
    assert.match(sweep.stdout, /\ntrue +builtin\/planner +3 +3 +100\.0%/);
  });

  test('report --prices prices a model from a user file; a bad file or grid exits 2 naming the fix', async () => {
    const directory = temporaryDirectory();
    assert.equal((await runCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '2'], { cwd: directory })).code, 0);
    writeFileSync(join(directory, 'prices.json'), JSON.stringify({ 'builtin/*': { input: 1, output: 2 } }));
    const priced = await runCli(['report', 'latest', '--format', 'json', '--prices', 'prices.json'], { cwd: directory });
    // Built-in models report no tokens: the cost is exactly 0 at any price, and the price is found.
    assert.equal(JSON.parse(priced.stdout).usage.costUsd, 0);
    writeFileSync(join(directory, 'bad.json'), JSON.stringify({ 'openai/gpt-4.1': { input: 'two', output: 8 } }));
    const bad = await runCli(['report', '--prices', 'bad.json'], { cwd: directory });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /price file .*\["openai\/gpt-4\.1"\]\.input: /);
    assert.match(bad.stderr, /fix: /);
    for (const args of [['--grid', 'nope=1,2'], ['--grid', 'core=5,5'], ['--grid', 'core=5', '--set', 'core=6'], []]) {
      const result = await runCli(['sweep', 'funcgen', '--model', 'builtin/planner', ...args], { cwd: directory });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /fix: /);
    }
    const noModel = await runCli(['sweep', 'funcgen', '--grid', 'core=5,6'], { cwd: directory });
    assert.equal(noModel.code, 2);
    assert.match(noModel.stderr, /at least one model/);
    assert.ok(readFileSync(join(directory, '.toolforge', 'results.db')).length > 0);
  });
});

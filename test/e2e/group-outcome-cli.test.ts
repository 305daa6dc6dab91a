/**
 * A group of runs ends as honestly as one run: an eval set (`run --config`) or a sweep with a model whose every
 * episode was an infrastructure error names the run, the cause and how to finish it, shows no mean for the model, and
 * exits 3; an eval set's --fail-under gates every run (exit 4, naming those below). Before, both exited 0 silently.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { reportGroupOutcome } from '../../src/cli/group-outcome.ts';
import type { JsonObject } from '../../src/core/json.ts';
import { streamGeneratedTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { funcgenSuite } from '../../src/suites/funcgen/index.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { binPath, runCli, temporaryDirectory } from './run-cli.ts';

/** A port nothing listens on: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

describe('how a group of runs ends', () => {
  test('sweep: a model that scored nothing is named with its cause and resume command, has no mean, and the sweep exits 3', async () => {
    const directory = temporaryDirectory();
    const port = await closedPort();
    const sweep = await runCli(['sweep', 'funcgen', '--grid', 'core=3,4', '--set', 'depth=1', '--count', '1', '--db', 'r.db',
      '--model', 'openai-compatible/down', '--model', 'builtin/planner', '--base-url', `http://127.0.0.1:${port}/v1`, '--max-retries', '0'], { cwd: directory, env: {} });
    assert.equal(sweep.code, 3, sweep.stderr);
    const unscored = [...sweep.stderr.matchAll(/^run (\S+) \(openai-compatible\/down on funcgen\): 1 of 1 episodes not scored \(could not connect[^\n]*\); finish them with: toolforge run --resume (\S+) --db r\.db$/gm)];
    assert.equal(unscored.length, 2, sweep.stderr);
    assert.ok(unscored.every((match) => match[1] === match[2]));
    assert.match(sweep.stderr, /no episode scored in 2 of 4 runs: they have no pass rate to report \(exit code 3\)/);
    assert.match(sweep.stdout, /^openai-compatible\/down +- +-$/m, 'the leaderboard shows no mean for a model with no scored episode');
    assert.doesNotMatch(sweep.stderr, /builtin\/planner on funcgen/);
  });

  test('sweep: every run scored exits 0 with nothing to say', async () => {
    const directory = temporaryDirectory();
    const sweep = await runCli(['sweep', 'funcgen', '--grid', 'core=3,4', '--set', 'depth=1', '--count', '2', '--model', 'builtin/random', '--db', 'r.db'], { cwd: directory });
    assert.equal(sweep.code, 0, sweep.stderr);
    assert.doesNotMatch(sweep.stderr, /not scored|exit code/);
  });

  test('sweep: Ctrl-C exits 130 and names each unfinished run with the command that finishes it', async () => {
    const directory = temporaryDirectory();
    const sweep = spawn(process.execPath, [binPath, 'sweep', 'funcgen', '--grid', 'core=3,4', '--set', 'depth=1', '--count', '5000', '--model', 'builtin/planner', '--db', 'r.db'],
      { cwd: directory, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    sweep.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    const exited = new Promise<number | null>((resolve) => sweep.once('exit', (code) => resolve(code)));
    for (let waited = 0; !stderr.includes('point 1/2'); waited += 50) {
      assert.ok(waited < 60_000, stderr);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    sweep.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /\(interrupted: the report covers the runs so far\)/);
    // A built-in model's run stores its tasks as it runs them (run-as-made.ts): stopped, it usually has tasks not yet stored.
    assert.match(stderr, /^run (\S+) \(builtin\/planner on funcgen\): (\d+ of \d+ episodes not scored; finish them with|stopped while its tasks were still being stored \(\d+ so far\); store the rest and run the missing episodes with): toolforge run --resume \1 --db r\.db$/m);
    assert.doesNotMatch(stderr, /exit code 3/);
  });

  test('a run stopped while its tasks were stored is named even when every stored task\'s episodes are scored', async () => {
    const directory = temporaryDirectory();
    const store = openResultsStore(join(directory, 'r.db'));
    const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, { core: '3', depth: '1' }) as JsonObject;
    const recipe = { seed: 1, count: 100, params };
    const stop = new AbortController();
    // One episode at a time, stopped as the 16th ends: the first batch of 16 tasks is stored and scored, no other task is.
    const summary = await runEvaluation({
      suite: funcgenSuite, tasks: streamGeneratedTasks(funcgenSuite, recipe), modelRef: 'builtin/planner', seed: 1, params, store, concurrency: 1,
      taskRecipe: recipe, signal: stop.signal, onProgress: (event) => { if (event.type === 'episode-end' && event.completedEpisodes === 16) stop.abort(); },
    });
    assert.deepEqual([summary.status, summary.tasks, summary.episodes, summary.missingEpisodes, summary.tasksIncomplete], ['cancelled', 16, 16, 0, 'resumable']);
    let stderr = '';
    const io: CliIo = { stdout: () => {}, stderr: (text) => { stderr += text; }, isStderrTty: false, env: {}, cwd: directory };
    reportGroupOutcome(store, [summary.runId], { finish: (runId) => `toolforge run --resume ${runId} --db r.db`, interrupted: true, databaseFlag: ' --db r.db' }, io);
    assert.equal(stderr, `run ${summary.runId} (builtin/planner on funcgen): stopped while its tasks were still being stored (16 so far); store the rest and run the missing episodes with: toolforge run --resume ${summary.runId} --db r.db\n`);
    store.close();
  });

  test('eval set: --fail-under gates every run (exit 4 naming the runs below), --fail-under-lower its interval; a dead model exits 3', async () => {
    const directory = temporaryDirectory();
    writeFileSync(join(directory, 'set.yaml'), 'count: 4\nmodels:\n  - ref: builtin/oracle\n  - ref: builtin/random\nsuites:\n  - id: funcgen\n    set: {core: 3, depth: 1}\n');
    const gated = await runCli(['run', '--config', 'set.yaml', '--db', 'r.db', '--fail-under', '0.5'], { cwd: directory });
    assert.equal(gated.code, 4, gated.stderr);
    assert.match(gated.stderr, /--fail-under: 1 of 2 runs are below 50\.0% \(exit code 4\):\n {2}run \S+ \(builtin\/random on funcgen\): the pass rate 0\.0%\n/);
    // The same file continues the same group: every run is done, and the gate is applied again.
    const passing = await runCli(['run', '--config', 'set.yaml', '--db', 'r.db', '--fail-under', '0'], { cwd: directory });
    assert.equal(passing.code, 0, passing.stderr);
    // The oracle's 4 of 4 has a 95% lower bound of 51.0%: below 60% by the interval, not by the rate.
    const lower = await runCli(['run', '--config', 'set.yaml', '--db', 'r.db', '--fail-under', '0.6', '--fail-under-lower'], { cwd: directory });
    assert.equal(lower.code, 4, lower.stderr);
    assert.match(lower.stderr, /--fail-under: 2 of 2 runs are below 60\.0%/);
    assert.match(lower.stderr, /builtin\/oracle on funcgen\): the pass rate's 95% lower bound 51\.0%/);

    const port = await closedPort();
    writeFileSync(join(directory, 'down.yaml'), `count: 2\nmodels:\n  - ref: openai-compatible/down\n    baseUrl: http://127.0.0.1:${port}/v1\n  - ref: builtin/oracle\nsuites:\n  - id: funcgen\n    set: {core: 3, depth: 1}\n`);
    const down = await runCli(['run', '--config', 'down.yaml', '--db', 'r.db', '--max-retries', '0', '--fail-under', '0.5'], { cwd: directory, env: {} });
    assert.equal(down.code, 3, down.stderr);
    assert.match(down.stderr, /\(openai-compatible\/down on funcgen\): 2 of 2 episodes not scored \(could not connect[^\n]*\); finish them with: toolforge run --config down\.yaml --db r\.db \(the same file continues the eval set\)/);
  });
});

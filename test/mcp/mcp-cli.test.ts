import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { JsonObject } from '../../src/core/json.ts';
import type { Task } from '../../src/core/task.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { applyTransformsPrepared, parseTransformRequest } from '../../src/transforms/registry.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { readFuncgenTask } from '../../src/suites/funcgen/funcgen-task.ts';
import { main } from '../../src/cli/main.ts';
import { binPath, runCli, temporaryDirectory } from '../e2e/run-cli.ts';

const agentScript = resolve(import.meta.dirname, '../fixtures/mcp-scripted-agent.mjs');

async function funcgenFiles(directory: string): Promise<{ tasksPath: string; goldPath: string }> {
  const suite = getSuite('funcgen');
  const tasks = await generateTasks(suite, { seed: 11, count: 2, params: resolveKnobs(suite.id, suite.knobs, { core: 4, depth: 2 }) });
  const tasksPath = join(directory, 'tasks.jsonl');
  writeFileSync(tasksPath, tasks.map((task) => JSON.stringify(task)).join('\n') + '\n');
  return { tasksPath, goldPath: writeGold(directory, 'gold.json', tasks) };
}

/** The oracle's calls and answer for each task, as the scripted agent's --gold file. */
function writeGold(directory: string, name: string, tasks: readonly Task[]): string {
  const gold = Object.fromEntries(tasks.map((task) => {
    const { expected } = readFuncgenTask(task);
    const byName = new Map(expected.functions.map((fn) => [fn.name, fn]));
    const calls = expected.solution.map((name) => ({
      name, arguments: Object.fromEntries((byName.get(name)?.parameters ?? []).map((parameter) => [parameter.name, parameter.value])) as JsonObject,
    }));
    return [task.id, { calls, answer: `The value of ${expected.target.variable} is ${expected.target.value}.` }];
  }));
  const path = join(directory, name);
  writeFileSync(path, JSON.stringify(gold));
  return path;
}

function runAgent(args: string[]): Promise<number | null> {
  const child = spawn(process.execPath, [agentScript, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((resolvePromise) => child.once('exit', (code) => resolvePromise(code)));
}

describe('CLI: toolforge serve and run --agent-command', () => {
  test('serve prints its endpoint; an MCP client solves every episode; the run is stored as mcp/<client name>', async () => {
    const directory = temporaryDirectory();
    const { tasksPath, goldPath } = await funcgenFiles(directory);
    let stdout = '';
    let agentExit: Promise<number | null> | undefined;
    const code = await main(['serve', 'funcgen', '--tasks', tasksPath, '--db', 'results.db', '--json'], {
      stdout: (text) => { stdout += text; },
      stderr: (text) => {
        const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text)?.[1];
        if (url) agentExit = runAgent(['--url', url, '--policy', 'oracle', '--gold', goldPath, '--sessions', 'all']);
      },
      isStderrTty: false, env: {}, cwd: directory,
    });
    assert.equal(code, 0);
    assert.equal(await agentExit, 0);
    const summary = JSON.parse(stdout) as { model: string; passRate: number; episodes: number };
    assert.equal(summary.model, 'mcp/scripted-agent');
    assert.equal(summary.episodes, 2);
    assert.equal(summary.passRate, 1);
  });

  test('serve checks every task before it listens: a bad line, a duplicate or an empty file is refused with no endpoint opened', async () => {
    const directory = temporaryDirectory();
    const { tasksPath } = await funcgenFiles(directory);
    const [first, second] = readFileSync(tasksPath, 'utf8').trim().split('\n');
    const files: [string, string, RegExp][] = [
      ['bad-line.jsonl', `${first}\n${second}\n{"id": 3}\n`, /bad-line\.jsonl:3: /],
      ['duplicate.jsonl', `${first}\n${second}\n${first}\n`, /duplicate\.jsonl:3: task id 'funcgen\/11\/0' already appears on line 1/],
      ['empty.jsonl', '\n', /empty\.jsonl holds no tasks/],
    ];
    for (const [name, text, expected] of files) {
      writeFileSync(join(directory, name), text);
      // With the suite named, and without it (the file's first task names it): the same refusal.
      for (const suite of [['funcgen'], []]) {
        const result = await runCli(['serve', ...suite, '--tasks', name, '--db', 'results.db'], { cwd: directory, env: {} });
        assert.equal(result.code, 2, `${name}: ${result.stderr}`);
        assert.match(result.stderr, expected, name);
        assert.doesNotMatch(result.stderr, /serving/, name);
      }
    }
    const nothing = await runCli(['serve', '--db', 'results.db'], { cwd: directory, env: {} });
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /no suite given\n {2}fix: name one: 'toolforge serve funcgen'/);
  });

  test('serve refuses what cannot work before it listens: a mode the suite lacks, --port with --stdio, --count, --seed or --set with --tasks, a bad --db', async () => {
    const directory = temporaryDirectory();
    const { tasksPath } = await funcgenFiles(directory);
    writeFileSync(join(directory, 'not-a-database.db'), 'plain text, not SQLite '.repeat(50));
    const cases: [string[], RegExp][] = [
      [['serve', 'funcgen', '--mode', 'code'], /suite 'funcgen' does not support mode 'code'\n {2}fix: use --mode calls\|react/],
      [['serve', '--tasks', tasksPath, '--mode', 'sequence'], /does not support mode 'sequence'/],
      [['serve', 'funcgen', '--stdio', '--port', '5000'], /--stdio serves on stdin\/stdout, so --port has nothing to set\n {2}fix: drop --port/],
      [['serve', '--tasks', tasksPath, '--count', '3'], /--tasks reads fixed tasks, so --count and --set have nothing to change/],
      [['serve', '--tasks', tasksPath, '--set', 'core=4'], /--tasks reads fixed tasks/],
      [['serve', '--tasks', tasksPath, '--seed', '4'], /--tasks reads fixed tasks \(each carries the seed it was made with\), so --seed has nothing to change\n {2}fix: drop --seed to serve the file as it is; --seed seeds a --transform of the file/],
      // serve has no phrasing model, and drift applies once to a task: both refused before a task is made.
      [['serve', 'funcgen', '--transform', 'perturb:kind=paraphrase', '--db', 'transform.db'], /perturb:kind=paraphrase asks a phrasing model to rewrite every task, and serve has none\n {2}fix: run it on its own with toolforge run <suite> --transform perturb:kind=paraphrase --phrasing-model <ref>/],
      [['serve', 'funcgen', '--transform', 'drift', '--transform', 'rename-tools', '--transform', 'drift:op=rename', '--db', 'transform.db'], /transform drift is given twice in the chain \(1st and 3rd\), but it applies once to a task/],
      [['serve', 'funcgen', '--transform', 'no-such-transform', '--db', 'transform.db'], /no-such-transform/],
      [['serve', '--resume', 'latest', '--transform', 'rename-tools'], /--resume serves run 'latest' again with its own tasks, mode, trials and client; --transform cannot change them/],
      [['serve', 'funcgen', '--db', 'not-a-database.db'], /not-a-database\.db is not a ToolForge results database/],
      // The suite has the mode, these tasks do not (calls is the voice scenario's): refused before it listens.
      [['serve', 'stateful', '--count', '1', '--mode', 'calls'], /task 'stateful\/session\/0\/0' does not support mode 'calls' \(it supports code\)\n {2}fix: use --mode code/],
    ];
    for (const [args, expected] of cases) {
      const result = await runCli(args, { cwd: directory, env: {} });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, expected, args.join(' '));
      assert.doesNotMatch(result.stderr, /serving/, args.join(' '));
    }
    // A refused chain records nothing: its database was never made.
    assert.equal(existsSync(join(directory, 'transform.db')), false);
  });

  test('serve --transform serves derived tasks, generated (recorded in the recipe) or from a file (seeded by --seed); the client solves them', async () => {
    const directory = temporaryDirectory();
    const suite = getSuite('funcgen');
    const params = resolveKnobs(suite.id, suite.knobs, { core: 4, depth: 2 });
    const chain = ['perturb:kind=case-mix', 'rename-tools'];
    const cases = [
      { name: 'generated', args: ['funcgen', '--count', '2', '--seed', '11', '--set', 'core=4', '--set', 'depth=2'], seed: 11 },
      { name: 'file', args: ['--tasks', (await funcgenFiles(directory)).tasksPath, '--seed', '5'], seed: 5 },
    ];
    for (const { name, args, seed } of cases) {
      // The client's gold is the derived tasks': their tool names and prompts are the transforms'.
      const derived = await generateTasks(suite, { seed: 11, count: 2, params })
        .then((tasks) => applyTransformsPrepared(tasks, chain.map(parseTransformRequest), seed, {}));
      const goldPath = writeGold(directory, `${name}-gold.json`, derived);
      let stdout = '';
      let stderr = '';
      let agentExit: Promise<number | null> | undefined;
      const code = await main(['serve', ...args, ...chain.flatMap((text) => ['--transform', text]), '--db', `${name}.db`, '--json'], {
        stdout: (text) => { stdout += text; },
        stderr: (text) => {
          stderr += text;
          const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text)?.[1];
          if (url) agentExit = runAgent(['--url', url, '--policy', 'oracle', '--gold', goldPath, '--sessions', 'all']);
        },
        isStderrTty: false, env: {}, cwd: directory,
      });
      assert.equal(code, 0, `${name}: ${stderr}`);
      assert.equal(await agentExit, 0, name);
      const summary = JSON.parse(stdout) as { runId: string; passRate: number; episodes: number };
      assert.deepEqual([summary.episodes, summary.passRate], [2, 1], name);
      const store = openResultsStore(join(directory, `${name}.db`));
      try {
        const run = store.getRun(summary.runId);
        assert.deepEqual(run.provenance.transforms?.map((record) => record.id), ['perturb', 'rename-tools'], name);
        assert.deepEqual(store.listTasks(run.id).map((task) => task.id), derived.map((task) => task.id), name);
        assert.deepEqual(store.listTasks(run.id).map((task) => task.origin?.transforms.map((record) => record.id)), [['perturb', 'rename-tools'], ['perturb', 'rename-tools']], name);
        // Generated tasks are made again from the recipe (serve --resume of a serve stopped while storing them).
        assert.deepEqual(run.provenance.taskRecipe?.transforms, name === 'generated' ? chain : undefined, name);
      } finally {
        store.close();
      }
    }
  });

  test('serve on a port another program holds, or past 65535, is refused with the fix and records no run', async () => {
    const directory = temporaryDirectory();
    const { tasksPath } = await funcgenFiles(directory);
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    try {
      const { port } = holder.address() as AddressInfo;
      const taken = await runCli(['serve', '--tasks', tasksPath, '--port', String(port), '--db', 'results.db'], { cwd: directory, env: {} });
      assert.equal(taken.code, 2, taken.stderr);
      assert.match(taken.stderr, new RegExp(`^error: port ${port} on 127\\.0\\.0\\.1 is already in use\n {2}fix: pass --port <another port>`));
      const tooHigh = await runCli(['serve', '--tasks', tasksPath, '--port', '70000', '--db', 'results.db'], { cwd: directory, env: {} });
      assert.equal(tooHigh.code, 2);
      assert.match(tooHigh.stderr, /argument '70000' is invalid\. expected a port from 1 to 65535, or 0 for a free one\n {2}fix: see 'toolforge serve --help'/);
      const runs = await runCli(['runs', '--json', '--db', 'results.db'], { cwd: directory, env: {} });
      assert.deepEqual(JSON.parse(runs.stdout || '[]'), []);
    } finally {
      holder.close();
    }
  });

  test('serve --stdio: one client session plays every episode in turn (tools/list_changed between them)', async () => {
    const directory = temporaryDirectory();
    const { tasksPath, goldPath } = await funcgenFiles(directory);
    // No suite named: the tasks file's tasks name it.
    const serve = [process.execPath, binPath, 'serve', '--stdio', '--tasks', tasksPath, '--db', join(directory, 'results.db'), '--json'];
    assert.equal(await runAgent(['--stdio', JSON.stringify(serve), '--policy', 'oracle', '--gold', goldPath]), 0);
    const runs = await runCli(['runs', '--db', 'results.db'], { cwd: directory, env: {} });
    assert.match(runs.stdout, /mcp\/scripted-agent/);
    const report = await runCli(['report', 'latest', '--db', 'results.db', '--format', 'json'], { cwd: directory, env: {} });
    assert.equal(report.code, 0, report.stderr);
    assert.equal((JSON.parse(report.stdout) as { passRate: number }).passRate, 1);
  });

  test('run --agent-command starts the agent per episode and scores it through the server', async () => {
    const directory = temporaryDirectory();
    const { tasksPath, goldPath } = await funcgenFiles(directory);
    const command = (policy: string) => `"${process.execPath}" "${agentScript}" --policy ${policy} --gold "${goldPath}"`;
    const oracle = await runCli(['run', 'funcgen', '--tasks', tasksPath, '--agent-command', command('oracle'), '--db', 'results.db', '--json'], { cwd: directory, env: { PATH: process.env.PATH } });
    assert.equal(oracle.code, 0, oracle.stderr);
    const summary = JSON.parse(oracle.stdout) as { model: string; passRate: number; runId: string };
    assert.match(summary.model, /^mcp\//);
    assert.equal(summary.passRate, 1);
    const nothing = await runCli(['run', 'funcgen', '--tasks', tasksPath, '--agent-command', command('nothing'), '--db', 'results.db', '--json'], { cwd: directory, env: { PATH: process.env.PATH } });
    assert.equal((JSON.parse(nothing.stdout) as { passRate: number }).passRate, 0);
    const both = await runCli(['run', 'funcgen', '--tasks', tasksPath, '--agent-command', 'true', '--model', 'builtin/oracle'], { cwd: directory, env: {} });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--agent-command is the agent under test/);
  });
});

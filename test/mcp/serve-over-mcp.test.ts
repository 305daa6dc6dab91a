import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { JsonObject } from '../../src/core/json.ts';
import type { Task } from '../../src/core/task.ts';
import { createAgentCommandSource, serveRun } from '../../src/mcp/index.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import type { Suite } from '../../src/suites/spec.ts';
import { readFuncgenTask } from '../../src/suites/funcgen/funcgen-task.ts';
import { nestfulExpected } from '../../src/suites/nestful/nestful-task.ts';
import { parseLenientJson } from '../../src/suites/nestful/lenient-json.ts';
import { runCli } from '../e2e/run-cli.ts';

const agentScript = resolve(import.meta.dirname, '../fixtures/mcp-scripted-agent.mjs');

type Gold = Record<string, { calls: { name: string; arguments: JsonObject; label?: string }[]; answer: string }>;

function funcgenGold(tasks: readonly Task[]): Gold {
  return Object.fromEntries(tasks.map((task) => {
    const { expected } = readFuncgenTask(task);
    const byName = new Map(expected.functions.map((fn) => [fn.name, fn]));
    const calls = expected.solution.map((name) => ({
      name, arguments: Object.fromEntries((byName.get(name)?.parameters ?? []).map((parameter) => [parameter.name, parameter.value])) as JsonObject,
    }));
    return [task.id, { calls, answer: `The value of ${expected.target.variable} is ${expected.target.value}.` }];
  }));
}

/** NESTFUL's gold call list, through a side channel file: the agent rewrites its label references. */
function nestfulGold(tasks: readonly Task[]): Gold {
  return Object.fromEntries(tasks.map((task) => {
    const parsed = parseLenientJson(nestfulExpected(task).outputJson);
    const calls = (parsed.ok && Array.isArray(parsed.value) ? parsed.value : []) as { name: string; arguments: JsonObject; label?: string }[];
    return [task.id, { calls: calls.filter((call) => call.name !== 'var_result'), answer: 'done' }];
  }));
}

function knobs(suite: Suite, raw: Record<string, number>): JsonObject {
  return resolveKnobs(suite.id, suite.knobs, raw);
}

function temporaryDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'toolforge-mcp-'));
}

function runAgent(args: string[]): Promise<number | null> {
  const child = spawn(process.execPath, [agentScript, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((resolvePromise) => child.once('exit', (code) => resolvePromise(code)));
}

async function serveWithAgent(suiteId: string, tasks: Task[], policy: string, gold: Gold, dbPath: string, serving: { streamGoneGraceMs?: number } = {}) {
  const directory = temporaryDirectory();
  const goldPath = join(directory, 'gold.json');
  writeFileSync(goldPath, JSON.stringify(gold));
  let agentExit: Promise<number | null> | undefined;
  const summary = await serveRun({
    suite: getSuite(suiteId), tasks, mode: 'calls', seed: 1, params: {}, dbPath, concurrency: 1, ...serving,
    onListening: (url) => { agentExit = runAgent(['--url', url, '--policy', policy, '--gold', goldPath, '--sessions', 'all']); },
  });
  assert.equal(await agentExit, 0);
  return summary;
}

describe('toolforge serve: an external MCP client (official SDK) as the agent', () => {
  test('funcgen: the oracle policy passes every task, the do-nothing policy none; the run is mcp/<client name> and reports', async () => {
    const suite = getSuite('funcgen');
    const tasks = await generateTasks(suite, { seed: 3, count: 3, params: knobs(suite, { core: 4, depth: 2 }) });
    const dbPath = join(temporaryDirectory(), 'results.db');
    const oracle = await serveWithAgent('funcgen', tasks, 'oracle', funcgenGold(tasks), dbPath);
    assert.equal(oracle.model, 'mcp/scripted-agent');
    assert.equal(oracle.episodes, 3);
    assert.equal(oracle.passRate, 1);
    const nothing = await serveWithAgent('funcgen', tasks, 'nothing', {}, dbPath);
    assert.equal(nothing.passRate, 0);
    assert.equal(nothing.infrastructureErrors, 0);

    const store = openResultsStore(dbPath);
    try {
      const episodes = store.listEpisodes(oracle.runId);
      // The transcript is built from the MCP traffic: the prompt, one assistant turn and result per call, the answer.
      const first = episodes[0];
      assert.ok(first);
      const toolMessages = first.messages.filter((message) => message.role === 'tool');
      assert.equal(toolMessages.length, first.calls.length);
      assert.ok(first.calls.length >= 1);
      const last = first.messages.at(-1);
      assert.match(last?.role === 'assistant' ? last.content : '', /^The value of /);
    } finally {
      store.close();
    }
    const report = await runCli(['report', oracle.runId, '--db', dbPath], { cwd: temporaryDirectory() });
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /mcp\/scripted-agent/);
  });

  test('nestful: the oracle replays the gold sequence over MCP (100%), do-nothing scores 0%', async () => {
    const suite = getSuite('nestful');
    const tasks = await generateTasks(suite, { seed: 5, count: 3, params: knobs(suite, {}) });
    const dbPath = join(temporaryDirectory(), 'results.db');
    const oracle = await serveWithAgent('nestful', tasks, 'oracle', nestfulGold(tasks), dbPath);
    assert.equal(oracle.passRate, 1);
    const nothing = await serveWithAgent('nestful', tasks, 'nothing', {}, dbPath);
    assert.equal(nothing.passRate, 0);
  });

  test('a client that closes its session mid-episode leaves an infrastructure error, never a score', async () => {
    const suite = getSuite('funcgen');
    const tasks = await generateTasks(suite, { seed: 4, count: 2, params: knobs(suite, { core: 3, depth: 1 }) });
    const summary = await serveWithAgent('funcgen', tasks, 'disconnect', {}, join(temporaryDirectory(), 'results.db'));
    assert.equal(summary.infrastructureErrors, 2);
    assert.equal(summary.episodes, 0);
  });

  test('a client killed mid-episode (no DELETE, its event stream dropped) frees its episode after the grace, not at the episode limit', async () => {
    const suite = getSuite('funcgen');
    const tasks = await generateTasks(suite, { seed: 4, count: 1, params: knobs(suite, { core: 3, depth: 1 }) });
    const dbPath = join(temporaryDirectory(), 'results.db');
    const started = performance.now();
    const summary = await serveWithAgent('funcgen', tasks, 'vanish', {}, dbPath, { streamGoneGraceMs: 300 });
    // The task's own limit is minutes: the run ended because the client was seen gone.
    assert.ok(performance.now() - started < 20_000, `${performance.now() - started} ms`);
    assert.deepEqual([summary.infrastructureErrors, summary.episodes], [1, 0]);
    const store = openResultsStore(dbPath);
    try {
      const [episode] = store.listEpisodes(summary.runId);
      assert.match(JSON.stringify(episode), /went away \(its event stream closed, and it sent nothing for 0 s\)/);
    } finally {
      store.close();
    }
  });
});

describe('run --agent-command: an external agent process per episode', () => {
  test('the scripted oracle started per episode passes funcgen; a crashing command is an infrastructure error', async () => {
    const suite = getSuite('funcgen');
    const tasks = await generateTasks(suite, { seed: 8, count: 2, params: knobs(suite, { core: 4, depth: 2 }) });
    const directory = temporaryDirectory();
    const goldPath = join(directory, 'gold.json');
    writeFileSync(goldPath, JSON.stringify(funcgenGold(tasks)));
    const dbPath = join(directory, 'results.db');
    const agent = createAgentCommandSource({ command: `"${process.execPath}" "${agentScript}" --policy oracle --gold "${goldPath}"`, name: 'scripted' });
    const summary = await runEvaluation({ suite, tasks, modelRef: agent.ref, agent, seed: 8, params: {}, dbPath, concurrency: 2 });
    assert.equal(summary.model, 'mcp/scripted');
    assert.equal(summary.passRate, 1);
    const crashing = createAgentCommandSource({ command: 'exit 3', name: 'crashing' });
    const crashed = await runEvaluation({ suite, tasks, modelRef: crashing.ref, agent: crashing, seed: 8, params: {}, dbPath });
    assert.equal(crashed.infrastructureErrors, 2);
  });

  test('an agent that never answers within the episode limit is killed and recorded as agent.timeout, never scored', async () => {
    const suite = getSuite('funcgen');
    const tasks = await generateTasks(suite, { seed: 9, count: 1, params: knobs(suite, { core: 3, depth: 1 }) });
    const dbPath = join(temporaryDirectory(), 'results.db');
    const hanging = createAgentCommandSource({ command: 'sleep 60', name: 'hanging' });
    const summary = await runEvaluation({ suite, tasks, modelRef: hanging.ref, agent: hanging, seed: 9, params: {}, dbPath, episodeTimeoutMs: 300 });
    assert.equal(summary.infrastructureErrors, 1);
    assert.equal(summary.episodes, 0);
    const store = openResultsStore(dbPath);
    try {
      assert.equal(store.listEpisodes(summary.runId)[0]?.error?.code, 'agent.timeout');
    } finally {
      store.close();
    }
  });

  test('what an agent leaves behind (a process that ignores SIGTERM, one outside its process group holding stderr) does not keep the run from ending', async () => {
    const suite = getSuite('funcgen');
    const tasks = await generateTasks(suite, { seed: 9, count: 2, params: knobs(suite, { core: 3, depth: 1 }) });
    const directory = temporaryDirectory();
    // A sleep no other process runs, to find what is left: its shell dies on SIGTERM, it does not.
    const marker = `sleep 987.${process.pid % 1000}`;
    for (const [name, command] of [['ignores-term', `sh -c "trap '' TERM; ${marker}"; true`], ['setsid', `setsid ${marker} & sleep 1000`]]) {
      const agent = createAgentCommandSource({ command, name });
      const started = performance.now();
      const summary = await runEvaluation({ suite, tasks, modelRef: agent.ref, agent, seed: 9, params: {}, dbPath: join(directory, `${name}.db`), episodeTimeoutMs: 300 });
      assert.equal(summary.infrastructureErrors, 2, name);
      assert.ok(performance.now() - started < 15_000, `${name}: ${performance.now() - started} ms`);
    }
    // A process that left the group is not ToolForge's to kill: the test cleans it up.
    spawn('pkill', ['-f', marker], { stdio: 'ignore' });
  });
});

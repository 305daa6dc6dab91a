/**
 * Code-mode suites over MCP: a client sees `run_program` alone (no task tools, no submit_answer), its program
 * runs once in the sandbox against the episode's backend and ends the episode, and the suite's own scorer
 * judges it. The external agent is the official MCP client SDK (test/fixtures/mcp-scripted-agent.mjs):
 * the oracle runs each task's reference answer (100%), do-nothing runs an empty program (0%).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Task } from '../../src/core/task.ts';
import { serveRun } from '../../src/mcp/index.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { readStatefulExpected } from '../../src/suites/stateful/stateful-task.ts';
import { answerWithCall } from '../../src/suites/webapi/builtin-models.ts';
import { renderAxiosCall } from '../../src/suites/webapi/render-axios.ts';
import { readWebapiExpected } from '../../src/suites/webapi/webapi-task.ts';
import { runCli } from '../e2e/run-cli.ts';
import { requireData } from '../require-data.ts';

const agentScript = resolve(import.meta.dirname, '../fixtures/mcp-scripted-agent.mjs');

type ProgramGold = Record<string, { program: string }>;

function temporaryDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'toolforge-mcp-code-'));
}

function runAgent(args: string[]): Promise<number | null> {
  const child = spawn(process.execPath, [agentScript, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((resolvePromise) => child.once('exit', (code) => resolvePromise(code)));
}

async function serveCode(suiteId: string, tasks: Task[], policy: string, gold: ProgramGold, dbPath: string) {
  const goldPath = join(temporaryDirectory(), 'gold.json');
  writeFileSync(goldPath, JSON.stringify(gold));
  let agentExit: Promise<number | null> | undefined;
  const summary = await serveRun({
    suite: getSuite(suiteId), tasks, mode: 'code', seed: 1, params: {}, dbPath, concurrency: 1,
    onListening: (url) => { agentExit = runAgent(['--url', url, '--policy', policy, '--gold', goldPath, '--sessions', 'all']); },
  });
  assert.equal(await agentExit, 0);
  return summary;
}

describe('code-mode suites over MCP: run_program', () => {
  test('webapi: the only tool is run_program; the oracle program passes every task, an empty one none; both report', { skip: requireData('wapiibench') }, async () => {
    const suite = getSuite('webapi');
    // A roomy program time limit: on a loaded machine the default 2 s can pass before the sandbox starts.
    const tasks = await generateTasks(suite, { seed: 2, count: 3, params: resolveKnobs(suite.id, suite.knobs, { executionTimeMs: '10000' }) });
    const gold: ProgramGold = Object.fromEntries(tasks.map((task) => [task.id, { program: answerWithCall(task, renderAxiosCall(readWebapiExpected(task).config)) }]));
    const dbPath = join(temporaryDirectory(), 'results.db');
    const oracle = await serveCode('webapi', tasks, 'oracle', gold, dbPath);
    assert.equal(oracle.model, 'mcp/scripted-agent');
    assert.equal(oracle.mode, 'code');
    assert.equal(oracle.episodes, 3);
    assert.equal(oracle.infrastructureErrors, 0);
    assert.equal(oracle.passRate, 1);
    const nothing = await serveCode('webapi', tasks, 'nothing', {}, dbPath);
    assert.equal(nothing.episodes, 3);
    assert.equal(nothing.infrastructureErrors, 0);
    assert.equal(nothing.passRate, 0);

    const store = openResultsStore(dbPath);
    try {
      // The transcript holds the program as the agent's answer, as the code agent's would.
      const [first] = store.listEpisodes(oracle.runId);
      const last = first?.messages.at(-1);
      assert.equal(last?.role === 'assistant' ? last.content : undefined, gold[first?.taskId ?? '']?.program);
    } finally {
      store.close();
    }
    const report = await runCli(['report', '--db', dbPath, '--format', 'json'], { cwd: temporaryDirectory() });
    assert.equal(report.code, 0, report.stderr);
    const runs = JSON.parse(report.stdout) as { runs: { model: string; mode: string; passRate: number }[] };
    assert.deepEqual(runs.runs.map((run) => [run.model, run.mode, run.passRate]), [['mcp/scripted-agent', 'code', 1], ['mcp/scripted-agent', 'code', 0]]);
  });

  test('stateful: the reference program through run_program passes (100%), an empty program fails (0%)', async () => {
    const suite = getSuite('stateful');
    const tasks = await generateTasks(suite, { seed: 3, count: 2, params: resolveKnobs(suite.id, suite.knobs, { calls: 3 }) });
    const gold: ProgramGold = Object.fromEntries(tasks.map((task) => [task.id, { program: `\`\`\`javascript\n${readStatefulExpected(task).program.body}\n\`\`\`` }]));
    const dbPath = join(temporaryDirectory(), 'results.db');
    const oracle = await serveCode('stateful', tasks, 'oracle', gold, dbPath);
    assert.equal(oracle.episodes, 2);
    assert.equal(oracle.passRate, 1);
    const nothing = await serveCode('stateful', tasks, 'nothing', {}, dbPath);
    assert.equal(nothing.episodes, 2);
    assert.equal(nothing.passRate, 0);
  });
});

/**
 * What an external agent gets, and what happens when it goes away or runs out of time, on every path:
 * `run --agent-command` gets the request on stdin and the endpoint and task id in its environment;
 * a `serve` (streamable HTTP) client that holds an episode past its limit leaves `agent.timeout`;
 * a `serve --stdio` client that closes stdin mid-run leaves `agent.disconnected` for the open episode
 * and every later one, and the server exits by itself. None of these is ever scored.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createAgentCommandSource, serveRun } from '../../src/mcp/index.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { binPath } from '../e2e/run-cli.ts';

const agentScript = resolve(import.meta.dirname, '../fixtures/mcp-scripted-agent.mjs');

function temporaryDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'toolforge-mcp-infra-'));
}

async function funcgenTasks(seed: number, count: number) {
  const suite = getSuite('funcgen');
  return { suite, tasks: await generateTasks(suite, { seed, count, params: resolveKnobs(suite.id, suite.knobs, { core: 3, depth: 1 }) }) };
}

function errorCodes(dbPath: string, runId: string): (string | undefined)[] {
  const store = openResultsStore(dbPath);
  try {
    return store.listEpisodes(runId).map((episode) => (episode.status === 'scored' ? 'scored' : episode.error?.code));
  } finally {
    store.close();
  }
}

describe('external agents: what they are given, and disconnects and timeouts on every path', () => {
  test('run --agent-command: the request on stdin, TOOLFORGE_MCP_URL and TOOLFORGE_TASK_ID in the environment', async () => {
    const { suite, tasks } = await funcgenTasks(21, 2);
    const directory = temporaryDirectory();
    const seen = join(directory, 'seen.jsonl');
    // Records what it was given, then exits 0 without answering: a scored episode without an answer.
    const recorder = join(directory, 'recorder.mjs');
    writeFileSync(recorder, `import { appendFileSync, readFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(seen)}, JSON.stringify({ stdin: readFileSync(0, 'utf8'), url: process.env.TOOLFORGE_MCP_URL, taskId: process.env.TOOLFORGE_TASK_ID }) + '\\n');
`);
    const dbPath = join(directory, 'results.db');
    const agent = createAgentCommandSource({ command: `"${process.execPath}" "${recorder}"`, name: 'recorder' });
    const summary = await runEvaluation({ suite, tasks, modelRef: agent.ref, agent, seed: 21, params: {}, dbPath, concurrency: 1 });
    assert.equal(summary.episodes, 2);
    assert.equal(summary.passRate, 0);
    const records = readFileSync(seen, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { stdin: string; url: string; taskId: string });
    assert.deepEqual(records.map((record) => record.taskId).sort(), tasks.map((task) => task.id).sort());
    for (const record of records) {
      const task = tasks.find((candidate) => candidate.id === record.taskId);
      assert.ok(task?.query, 'funcgen tasks state their request');
      assert.equal(record.stdin, `${task.query}\n`);
      assert.match(record.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    }
  });

  test('serve (streamable HTTP): a client that holds an episode past --episode-timeout leaves agent.timeout, never a score', async () => {
    const { suite, tasks } = await funcgenTasks(22, 1);
    const dbPath = join(temporaryDirectory(), 'results.db');
    let agent: ReturnType<typeof spawn> | undefined;
    const summary = await serveRun({
      suite, tasks, mode: 'calls', seed: 22, params: {}, dbPath, concurrency: 1, episodeTimeoutMs: 1_500,
      onListening: (url) => { agent = spawn(process.execPath, [agentScript, '--url', url, '--policy', 'hang'], { stdio: 'ignore' }); },
    });
    agent?.kill();
    assert.equal(summary.episodes, 0);
    assert.equal(summary.infrastructureErrors, 1);
    assert.deepEqual(errorCodes(dbPath, summary.runId), ['agent.timeout']);
  });

  test('serve --stdio: a client that closes stdin mid-run leaves agent.disconnected for every unfinished episode; the server exits by itself', async () => {
    const { tasks } = await funcgenTasks(23, 2);
    const directory = temporaryDirectory();
    const tasksPath = join(directory, 'tasks.jsonl');
    writeFileSync(tasksPath, tasks.map((task) => JSON.stringify(task)).join('\n') + '\n');
    const dbPath = join(directory, 'results.db');
    const serve = spawn(process.execPath, [binPath, 'serve', 'funcgen', '--stdio', '--tasks', tasksPath, '--db', dbPath, '--json'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    serve.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => serve.once('exit', (code, signal) => resolveExit({ code, signal })));
    // A client by hand: initialize, one tool call, then stdin closes (no answer).
    const send = (message: object): void => { serve.stdin.write(`${JSON.stringify(message)}\n`); };
    const replies: { id?: number }[] = [];
    let buffered = '';
    serve.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        replies.push(JSON.parse(buffered.slice(0, end)) as { id?: number });
        buffered = buffered.slice(end + 1);
      }
    });
    const reply = async (id: number): Promise<void> => {
      for (let waited = 0; !replies.some((message) => message.id === id); waited += 20) {
        assert.ok(waited < 20_000, `no reply to request ${id}; stderr: ${stderr}`);
        await new Promise((resolveWait) => setTimeout(resolveWait, 20));
      }
    };
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'closing-client', version: '1' } } });
    await reply(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await reply(2);
    const tool = tasks[0].tools[0];
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: tool.name, arguments: {} } });
    await reply(3);
    serve.stdin.end();
    const timer = setTimeout(() => serve.kill('SIGKILL'), 15_000);
    const exit = await exited;
    clearTimeout(timer);
    // Exit 3, as run gives: a serve that scored nothing is no result.
    assert.deepEqual(exit, { code: 3, signal: null }, `serve did not exit by itself after stdin closed; stderr: ${stderr}`);
    const summary = JSON.parse(stderr.slice(stderr.indexOf('{')).split('\n')[0]) as { runId: string; model: string; episodes: number; infrastructureErrors: number };
    assert.match(stderr, /\nno episode scored: 2 infrastructure errors \(.*\), 0 episodes not served; there is no pass rate to report \(exit code 3\)\n$/);
    assert.equal(summary.model, 'mcp/closing-client');
    assert.equal(summary.episodes, 0);
    assert.equal(summary.infrastructureErrors, 2);
    assert.deepEqual(errorCodes(dbPath, summary.runId), ['agent.disconnected', 'agent.disconnected']);
  });

  test('serve --stdio: stdin closed before any client initialized exits 2 naming the fix, instead of waiting forever', async () => {
    const directory = temporaryDirectory();
    const serve = spawn(process.execPath, [binPath, 'serve', 'funcgen', '--stdio', '--count', '1', '--db', join(directory, 'results.db')], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    serve.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    serve.stdin.end();
    const timer = setTimeout(() => serve.kill('SIGKILL'), 15_000);
    const code = await new Promise<number | null>((resolveExit) => serve.once('exit', (exitCode) => resolveExit(exitCode)));
    clearTimeout(timer);
    assert.equal(code, 2, stderr);
    assert.match(stderr, /closed the connection before it initialized/);
  });
});

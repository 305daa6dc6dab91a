/**
 * What a client is told when it uses its session after its episode ended, on every path: a second tool call, a second
 * submit_answer, tools/list, the episode resource and the prompt. The answer must be true: which episode ended and how,
 * how many episodes of the run remain, and how the client gets the next one (serve over HTTP: a new session; stdio:
 * the same session, in turn; --agent-command: a new process, started by ToolForge). Never "all are done" while
 * episodes remain.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Task } from '../../src/core/task.ts';
import { createAgentCommandSource, serveRun } from '../../src/mcp/index.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { binPath } from '../e2e/run-cli.ts';

type CallResult = Awaited<ReturnType<Client['callTool']>>;

function temporaryDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'toolforge-mcp-after-end-'));
}

async function funcgenTasks(seed: number, count: number) {
  const suite = getSuite('funcgen');
  return { suite, tasks: await generateTasks(suite, { seed, count, params: resolveKnobs(suite.id, suite.knobs, { core: 3, depth: 1 }) }) };
}

function textOf(result: CallResult): string {
  return (result.content as { type: string; text: string }[]).map((part) => part.text).join('\n');
}

function errorOf(result: CallResult): { code: string; message: string } {
  assert.equal(result.isError, true, textOf(result));
  return (JSON.parse(textOf(result)) as { error: { code: string; message: string } }).error;
}

async function episodeInfo(client: Client): Promise<{ taskId: string; state?: string; message?: string }> {
  const read = await client.readResource({ uri: 'toolforge://episode' });
  return JSON.parse((read.contents[0] as { text: string }).text) as { taskId: string; state?: string; message?: string };
}

function toolOf(tasks: readonly Task[], taskId: string): string {
  const task = tasks.find((candidate) => candidate.id === taskId);
  assert.ok(task, `no task ${taskId}`);
  return task.tools[0]!.name;
}

const quoted = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

async function httpSession(url: string): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client({ name: 'after-end-client', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, async close() { await transport.terminateSession(); await client.close(); } };
}

describe('a session used after its episode ended', () => {
  test('serve (HTTP): a second call, a second submit, tools/list, the resource and the prompt all say this episode ended, how many remain, and to open a new session', async () => {
    const { suite, tasks } = await funcgenTasks(31, 3);
    const dbPath = join(temporaryDirectory(), 'results.db');
    let listening: (url: string) => void = () => {};
    const endpoint = new Promise<string>((resolve) => { listening = resolve; });
    const served = serveRun({ suite, tasks, mode: 'calls', seed: 31, params: tasks[0]!.params, dbPath, concurrency: 1, onListening: (url) => listening(url) });
    served.catch(() => {});
    const url = await endpoint;

    const first = await httpSession(url);
    const { taskId } = await episodeInfo(first.client);
    const ack = await first.client.callTool({ name: 'submit_answer', arguments: { answer: 'the first answer' } });
    assert.notEqual(ack.isError, true, textOf(ack));

    const afterCall = errorOf(await first.client.callTool({ name: toolOf(tasks, taskId), arguments: {} }));
    assert.equal(afterCall.code, 'episode.over');
    assert.match(afterCall.message, new RegExp(`^the episode of task '${quoted(taskId)}' on this session has ended \\(its answer was submitted\\)\\. `));
    assert.match(afterCall.message, / 2 of the run's 3 episodes remain \(0 being played in other sessions, 2 waiting for a client\)/);
    assert.match(afterCall.message, /close this session \(HTTP DELETE\) and open a new one at this endpoint/);
    assert.doesNotMatch(afterCall.message, /all are done|all episodes|every episode/i);
    // Submitting again changes nothing and is told the same.
    assert.deepEqual(errorOf(await first.client.callTool({ name: 'submit_answer', arguments: { answer: 'a second answer' } })), afterCall);
    // No tool can be used on this session any more.
    assert.deepEqual((await first.client.listTools()).tools, []);
    const info = await episodeInfo(first.client);
    assert.deepEqual([info.taskId, info.state, info.message], [taskId, 'ended', afterCall.message]);
    await assert.rejects(first.client.getPrompt({ name: 'task' }), (error: Error) => error.message.includes(afterCall.message));
    await first.close();

    const second = await httpSession(url);
    const secondTask = (await episodeInfo(second.client)).taskId;
    assert.notEqual(secondTask, taskId);
    await second.client.callTool({ name: 'submit_answer', arguments: { answer: 'x' } });
    const afterSecond = errorOf(await second.client.callTool({ name: toolOf(tasks, secondTask), arguments: {} }));
    assert.match(afterSecond.message, / 1 of the run's 3 episodes remain \(0 being played in other sessions, 1 waiting for a client\)/);
    await second.close();

    const third = await httpSession(url);
    await third.client.callTool({ name: 'submit_answer', arguments: { answer: 'y' } });
    const afterLast = errorOf(await third.client.callTool({ name: 'submit_answer', arguments: { answer: 'z' } }));
    assert.match(afterLast.message, /has ended \(its answer was submitted\)\. Every episode of this run is done: nothing is left to serve; close this session \(HTTP DELETE\)\.$/);
    assert.deepEqual((await third.client.listTools()).tools, []);
    await third.close();

    const summary = await served;
    assert.equal(summary.episodes, 3);
    const store = openResultsStore(dbPath);
    try {
      const stored = store.listEpisodes(summary.runId).find((episode) => episode.taskId === taskId);
      // The answer that ended the episode stands; the second submit recorded nothing.
      assert.deepEqual(stored?.messages.at(-1), { role: 'assistant', content: 'the first answer', toolCalls: [] });
    } finally {
      store.close();
    }
  });

  test('run --agent-command: after submit_answer the process is told its episode ended and that ToolForge starts it again for the other episodes', async () => {
    const { suite, tasks } = await funcgenTasks(32, 2);
    const directory = temporaryDirectory();
    const seen = join(directory, 'seen.jsonl');
    const agent = join(directory, 'twice.mjs');
    writeFileSync(agent, `process.on('SIGTERM', () => {});
import { appendFileSync } from 'node:fs';
import { Client } from ${JSON.stringify(import.meta.resolve('@modelcontextprotocol/sdk/client/index.js'))};
import { StreamableHTTPClientTransport } from ${JSON.stringify(import.meta.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js'))};
const client = new Client({ name: 'twice', version: '1' });
const transport = new StreamableHTTPClientTransport(new URL(process.env.TOOLFORGE_MCP_URL));
await client.connect(transport);
const ack = await client.callTool({ name: 'submit_answer', arguments: { answer: 'done' } });
const again = await client.callTool({ name: 'submit_answer', arguments: { answer: 'again' } });
const tools = (await client.listTools()).tools.map((tool) => tool.name);
appendFileSync(${JSON.stringify(seen)}, JSON.stringify({ taskId: process.env.TOOLFORGE_TASK_ID, ack, again, tools }) + '\\n');
await transport.terminateSession();
await client.close();
`);
    // ToolForge stops the process once its episode ended (SIGTERM to its group, SIGKILL 2 s later): this one ignores
    // SIGTERM (and the shell execs it, so no shell dies first), to see what a call made in that time is told.
    const source = createAgentCommandSource({ command: `exec "${process.execPath}" "${agent}"`, name: 'twice' });
    const summary = await runEvaluation({ suite, tasks, modelRef: source.ref, agent: source, seed: 32, params: tasks[0]!.params, dbPath: join(directory, 'results.db'), concurrency: 1 });
    assert.equal(summary.episodes, 2);
    const records = readFileSync(seen, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { taskId: string; ack: CallResult; again: CallResult; tools: string[] });
    assert.equal(records.length, 2);
    for (const record of records) {
      assert.notEqual(record.ack.isError, true);
      const again = errorOf(record.again);
      assert.equal(again.code, 'episode.over');
      assert.match(again.message, new RegExp(`^the episode of task '${quoted(record.taskId)}' on this session has ended \\(its answer was submitted\\)\\. `));
      assert.match(again.message, /exit: ToolForge starts the agent command again, with a new endpoint, for each other episode of the run/);
      assert.doesNotMatch(again.message, /all are done/);
      assert.deepEqual(record.tools, []);
    }
  });

  test('serve --stdio: a call that arrives while the next episode is on its way says so; after the last, every path says the run is done', async () => {
    const { tasks } = await funcgenTasks(33, 2);
    const directory = temporaryDirectory();
    const tasksPath = join(directory, 'tasks.jsonl');
    writeFileSync(tasksPath, tasks.map((task) => JSON.stringify(task)).join('\n') + '\n');
    const client = new Client({ name: 'stdio-after-end', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [binPath, 'serve', '--stdio', '--tasks', tasksPath, '--db', join(directory, 'results.db')], stderr: 'ignore' }));
    try {
      const { taskId } = await episodeInfo(client);
      // Sent before the answer to submit_answer arrives: this episode has ended, and the next is not here yet.
      const submitting = client.callTool({ name: 'submit_answer', arguments: { answer: 'one' } });
      const early = errorOf(await client.callTool({ name: toolOf(tasks, taskId), arguments: {} }));
      assert.equal(early.code, 'episode.over');
      assert.match(early.message, new RegExp(`^the episode of task '${quoted(taskId)}' on this session has ended \\(its answer was submitted\\)\\. `));
      assert.match(early.message, /1 of the run's 2 episodes remain(s)?: the next one comes on this same session/);
      assert.doesNotMatch(early.message, /all are done/);
      const next = /Next task \(([^)]+)\)/.exec(textOf(await submitting))?.[1];
      assert.ok(next && next !== taskId);
      assert.equal((await episodeInfo(client)).taskId, next);
      const last = await client.callTool({ name: 'submit_answer', arguments: { answer: 'two' } });
      assert.match(textOf(last), /All episodes of this run are done\.$/);
      const after = errorOf(await client.callTool({ name: toolOf(tasks, next), arguments: {} }));
      assert.equal(after.code, 'episode.none');
      assert.match(after.message, /^every episode of this run is done: nothing is left to serve; close the connection$/);
      assert.deepEqual((await client.listTools()).tools, []);
    } finally {
      await client.close();
    }
  });

  test('serve --stdio: an episode that timed out is said so at the next call, which moves the session on to the next task', async () => {
    const { tasks } = await funcgenTasks(34, 2);
    const directory = temporaryDirectory();
    const tasksPath = join(directory, 'tasks.jsonl');
    writeFileSync(tasksPath, tasks.map((task) => JSON.stringify(task)).join('\n') + '\n');
    const dbPath = join(directory, 'results.db');
    const client = new Client({ name: 'stdio-slow', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [binPath, 'serve', '--stdio', '--tasks', tasksPath, '--db', dbPath, '--episode-timeout', '800'], stderr: 'ignore' }));
    try {
      const { taskId } = await episodeInfo(client);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const late = errorOf(await client.callTool({ name: toolOf(tasks, taskId), arguments: {} }));
      assert.equal(late.code, 'episode.over');
      assert.match(late.message, new RegExp(`^the episode of task '${quoted(taskId)}' on this session has ended \\(it failed: agent\\.timeout; not scored, resuming the run serves it again\\)\\. `));
      const next = /Next task \(([^)]+)\): /.exec(late.message)?.[1];
      assert.ok(next && next !== taskId, late.message);
      assert.equal((await episodeInfo(client)).taskId, next);
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'submit_answer'));
      const last = await client.callTool({ name: 'submit_answer', arguments: { answer: 'two' } });
      assert.match(textOf(last), /All episodes of this run are done\.$/);
    } finally {
      await client.close();
    }
    const store = openResultsStore(dbPath);
    try {
      const run = store.latestRun();
      assert.ok(run);
      const codes = store.listEpisodes(run.id).map((episode) => [episode.taskId, episode.status === 'scored' ? 'scored' : episode.error?.code]);
      assert.deepEqual(codes.sort(), [[tasks[0]!.id, 'agent.timeout'], [tasks[1]!.id, 'scored']].sort());
    } finally {
      store.close();
    }
  });
});

/**
 * The session server and the episode on their own (an in-memory MCP transport, no process): every way an episode
 * ends (the tool-call limit, a failure such as a timeout, a program run in code mode) leaves the session answering
 * what its slot says, with no tools listed; the answer that ends an episode says whether it is stored; the tally a
 * served run tells clients counts episodes held in other sessions and ended ones as it should.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AgentContext } from '../../src/agents/spec.ts';
import type { Environment } from '../../src/core/environment.ts';
import { ToolForgeError } from '../../src/core/errors.ts';
import type { Task } from '../../src/core/task.ts';
import type { EpisodeStorage } from '../../src/mcp/episode-commits.ts';
import { createEpisodeMcpServer, endedEpisodeText } from '../../src/mcp/episode-mcp-server.ts';
import { McpEpisode } from '../../src/mcp/mcp-episode.ts';
import { createServedRunTally } from '../../src/mcp/served-run-tally.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';

type CallResult = Awaited<ReturnType<Client['callTool']>>;

function context(environment: Environment, maxToolCalls = 10): AgentContext {
  return {
    model: undefined as never, environment, limits: { maxTurns: 10, maxToolCalls, timeLimitMs: 60_000 }, settings: {},
    signal: new AbortController().signal, sandbox: () => { throw new Error('no sandbox here'); }, emit: () => {},
  };
}

function textOf(result: CallResult): string {
  return (result.content as { text: string }[]).map((part) => part.text).join('\n');
}

function errorOf(result: CallResult): { code: string; message: string } {
  assert.equal(result.isError, true, textOf(result));
  return (JSON.parse(textOf(result)) as { error: { code: string; message: string } }).error;
}

async function funcgenTask(): Promise<Task> {
  const suite = getSuite('funcgen');
  const [task] = await generateTasks(suite, { seed: 51, count: 1, params: resolveKnobs(suite.id, suite.knobs, { core: 3, depth: 1 }), validate: false });
  return task!;
}

/** A client on a session over `episode`, whose slot tells an ended episode's client `told: <how it ended>`. */
async function connect(episode: McpEpisode): Promise<Client> {
  const server = createEpisodeMcpServer({ current: () => episode, noEpisode: (ended) => `told: ${ended ? endedEpisodeText(ended) : 'no episode'}` });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'in-memory', version: '1' });
  await client.connect(clientSide);
  return client;
}

describe('an ended episode on its session', () => {
  test('ended by its tool-call limit: the call that reached it says so; every later call, submit included, gets the slot\'s words; no tools are listed', async () => {
    const task = await funcgenTask();
    const environment = await getSuite('funcgen').createEnvironment(task, 'calls');
    try {
      const episode = new McpEpisode(task, 'calls', context(environment, 1));
      const client = await connect(episode);
      const tool = task.tools[0]!.name;
      await client.callTool({ name: tool, arguments: {} });
      const limit = errorOf(await client.callTool({ name: tool, arguments: {} }));
      assert.equal(limit.code, 'limit.exceeded');
      assert.equal(episode.isOver, true);
      const told = `told: the episode of task '${task.id}' on this session has ended (it reached its limit of 1 tool calls)`;
      assert.deepEqual(errorOf(await client.callTool({ name: 'submit_answer', arguments: { answer: 'late' } })), { code: 'episode.over', message: told });
      assert.deepEqual(errorOf(await client.callTool({ name: tool, arguments: {} })), { code: 'episode.over', message: told });
      assert.deepEqual((await client.listTools()).tools, []);
      await assert.rejects(client.readResource({ uri: 'toolforge://episode/request' }), (error: Error) => error.message.includes(told));
      assert.equal((await episode.outcome).termination, 'max-tool-calls');
      await client.close();
    } finally {
      await environment.dispose();
    }
  });

  test('code mode, ended by a timeout: run_program again gets the slot\'s words, naming the failure; no tools are listed', async () => {
    const task = await funcgenTask();
    const environment = await getSuite('funcgen').createEnvironment(task, 'calls');
    try {
      const episode = new McpEpisode(task, 'code', context(environment));
      const client = await connect(episode);
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['run_program']);
      episode.fail(new ToolForgeError('agent.timeout', 'too slow'));
      await assert.rejects(episode.outcome);
      const again = errorOf(await client.callTool({ name: 'run_program', arguments: { program: '1' } }));
      assert.deepEqual(again, { code: 'episode.over', message: `told: the episode of task '${task.id}' on this session has ended (it failed: agent.timeout; not scored, resuming the run serves it again)` });
      assert.deepEqual((await client.listTools()).tools, []);
      const info = JSON.parse(((await client.readResource({ uri: 'toolforge://episode' })).contents[0] as { text: string }).text) as Record<string, unknown>;
      assert.deepEqual([info.state, info.message], ['ended', again.message]);
      await client.close();
    } finally {
      await environment.dispose();
    }
  });

  test('the answer that ends an episode waits for the store and says what it holds: scored, an infrastructure error, or nothing yet', async () => {
    const task = await funcgenTask();
    const environment = await getSuite('funcgen').createEnvironment(task, 'calls');
    try {
      const answerWith = async (storage: EpisodeStorage | undefined): Promise<string> => {
        let asked = 0;
        const episode = new McpEpisode(task, 'calls', context(environment), storage === undefined ? {} : {
          trial: 0, untilStored: () => { asked += 1; return new Promise((resolve) => setTimeout(() => resolve(storage), 20)); },
        });
        const text = textOf(await episode.call('submit_answer', { answer: '42' }) as CallResult);
        assert.equal(asked, storage === undefined ? 0 : 1);
        return text;
      };
      assert.equal(await answerWith(undefined), 'answer recorded; the episode is over');
      assert.equal(await answerWith({ stored: true, status: 'scored' }), 'answer recorded and stored; the episode is over');
      assert.match(await answerWith({ stored: true, status: 'infrastructure-error', errorCode: 'sandbox.crashed' }),
        /^answer recorded; the episode is over\. It could not be scored \(sandbox\.crashed\): it is stored as an infrastructure error, and resuming the run serves this task again\.$/);
      assert.match(await answerWith({ stored: false, why: 'run-ended' }), /^answer recorded; the episode is over\. The run stopped before it was stored: resuming the run serves this task again\.$/);
    } finally {
      await environment.dispose();
    }
  });
});

describe('the served run tally', () => {
  test('remaining counts an episode a client ended as done before the runner records it; playing counts the held, open ones', async () => {
    const task = await funcgenTask();
    const environment = await getSuite('funcgen').createEnvironment(task, 'calls');
    try {
      const tally = createServedRunTally();
      const seen: string[] = [];
      const listen = tally.listener((event) => seen.push(event.type));
      listen({ type: 'run-start', runId: 'r', plannedEpisodes: 4, alreadyScoredEpisodes: 0, totalEpisodes: 4 });
      const first = new McpEpisode(task, 'calls', context(environment), { trial: 0 });
      const second = new McpEpisode(task, 'calls', context(environment), { trial: 1 });
      tally.claimed(first);
      tally.claimed(second);
      assert.deepEqual(tally.counts(), { total: 4, remaining: 4, playing: 2, ended: undefined });
      await first.call('submit_answer', { answer: 'a' });
      assert.deepEqual(tally.counts(), { total: 4, remaining: 3, playing: 1, ended: undefined });
      // The runner records trial 0: the count stays, and the other trial of the same task is still held.
      listen({ type: 'episode-end', runId: 'r', taskId: task.id, trial: 0, status: 'scored', passed: false, attempts: 1, completedEpisodes: 1, plannedEpisodes: 4 });
      assert.deepEqual(tally.counts(), { total: 4, remaining: 3, playing: 1, ended: undefined });
      listen({ type: 'run-end', runId: 'r', status: 'cancelled' });
      assert.deepEqual(tally.counts(), { total: 4, remaining: 0, playing: 0, ended: 'cancelled' });
      assert.deepEqual(seen, ['run-start', 'episode-end', 'run-end'], 'every event goes on to the caller\'s listener');
    } finally {
      await environment.dispose();
    }
  });
});

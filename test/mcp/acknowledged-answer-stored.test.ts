/**
 * An acknowledged answer is a stored answer: `toolforge serve` answers submit_answer only once the episode is
 * committed to the results store, so a serve killed with SIGKILL the moment the acknowledgement arrives has the
 * episode (group commit would otherwise hold it for up to ~100 ms, and a kill in that window lost it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { binPath } from '../e2e/run-cli.ts';

test('serve killed with SIGKILL right after submit_answer is acknowledged still has the episode in its store', async () => {
  const suite = getSuite('funcgen');
  const tasks = await generateTasks(suite, { seed: 41, count: 3, params: resolveKnobs(suite.id, suite.knobs, { core: 3, depth: 1 }) });
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-mcp-kill-'));
  const tasksPath = join(directory, 'tasks.jsonl');
  writeFileSync(tasksPath, tasks.map((task) => JSON.stringify(task)).join('\n') + '\n');
  const dbPath = join(directory, 'results.db');
  const serve = spawn(process.execPath, [binPath, 'serve', '--tasks', tasksPath, '--db', dbPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => serve.once('exit', (_code, signal) => resolve(signal)));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no endpoint; stderr: ${stderr}`)), 20_000);
    serve.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const found = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
  const answered: { taskId: string; answer: string; ack: string }[] = [];
  try {
    // Two episodes: the first one's acknowledgement lets the second session in; the kill follows the second's at once.
    for (const answer of ['first, acknowledged', 'second, acknowledged then killed']) {
      const client = new Client({ name: 'durable-client', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(url));
      await client.connect(transport);
      const read = await client.readResource({ uri: 'toolforge://episode' });
      const { taskId } = JSON.parse((read.contents[0] as { text: string }).text) as { taskId: string };
      const ack = await client.callTool({ name: 'submit_answer', arguments: { answer } });
      const text = (ack.content as { text: string }[]).map((part) => part.text).join('\n');
      answered.push({ taskId, answer, ack: text });
      if (answered.length === 2) {
        serve.kill('SIGKILL');
        await client.close();
        break;
      }
      await transport.terminateSession();
      await client.close();
    }
    assert.equal(await exited, 'SIGKILL');
  } finally {
    serve.kill('SIGKILL');
  }
  for (const { ack } of answered) assert.equal(ack, 'answer recorded and stored; the episode is over');
  const store = openResultsStore(dbPath);
  try {
    const run = store.latestRun();
    assert.ok(run, 'the run was recorded');
    const stored = store.listEpisodes(run.id);
    for (const { taskId, answer } of answered) {
      const episode = stored.find((candidate) => candidate.taskId === taskId);
      assert.ok(episode, `task ${taskId}: acknowledged, but not in the store after SIGKILL`);
      assert.equal(episode.status, 'scored');
      assert.deepEqual(episode.messages.at(-1), { role: 'assistant', content: answer, toolCalls: [] });
    }
  } finally {
    store.close();
  }
});

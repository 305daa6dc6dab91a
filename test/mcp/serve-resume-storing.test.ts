/**
 * A served run records how its tasks are read again (its tasks file, or the suite's recipe), so one stopped while its
 * tasks were being stored is continued by `serve --resume`, which stores the rest (from where `--tasks` says the file
 * is now, if it moved) and serves every unfinished episode.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { JsonObject } from '../../src/core/json.ts';
import type { Task } from '../../src/core/task.ts';
import { createMcpAgentSource } from '../../src/mcp/mcp-agent.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { formatTasksJsonl, streamTasksFile } from '../../src/runner/read-tasks-file.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { funcgenSuite } from '../../src/suites/funcgen/index.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { binPath, runCli, temporaryDirectory } from '../e2e/run-cli.ts';

const agentScript = resolve(import.meta.dirname, '../fixtures/mcp-scripted-agent.mjs');
const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, { core: '3', depth: '2', connected: '1', disconnected: '1' }) as JsonObject;
const taskCount = 24;

function runAgent(args: string[]): Promise<number | null> {
  const child = spawn(process.execPath, [agentScript, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((resolvePromise) => child.once('exit', (code) => resolvePromise(code)));
}

function provenanceOf(dbPath: string): JsonObject {
  const store = openResultsStore(dbPath);
  try {
    const run = store.latestRun();
    assert.ok(run);
    return run.provenance as unknown as JsonObject;
  } finally {
    store.close();
  }
}

describe('serve: a served run stopped while storing its tasks', async () => {
  const directory = temporaryDirectory();
  const tasksPath = join(directory, 'tasks.jsonl');
  writeFileSync(tasksPath, formatTasksJsonl(await generateTasks(funcgenSuite, { seed: 4, count: taskCount, params, validate: false })));

  test('serve records its tasks file, or its recipe, for a resume to read the tasks again', async () => {
    const served = [process.execPath, binPath, 'serve', '--stdio', '--tasks', tasksPath, '--db', join(directory, 'file.db'), '--json'];
    assert.equal(await runAgent(['--stdio', JSON.stringify(served), '--policy', 'nothing']), 0);
    assert.deepEqual(provenanceOf(join(directory, 'file.db')).tasksFile, { path: tasksPath, validate: true });
    const generated = [process.execPath, binPath, 'serve', 'funcgen', '--stdio', '--count', '3', '--seed', '5', '--set', 'core=3', '--set', 'depth=2', '--db', join(directory, 'recipe.db'), '--json'];
    assert.equal(await runAgent(['--stdio', JSON.stringify(generated), '--policy', 'nothing']), 0);
    const recipe = provenanceOf(join(directory, 'recipe.db')).taskRecipe as JsonObject;
    assert.deepEqual([recipe.seed, recipe.count, (recipe.params as JsonObject).core], [5, 3, 3]);
    // A tasks file for a run that stored all its tasks is refused before anything listens.
    const store = openResultsStore(join(directory, 'file.db'));
    const runId = store.latestRun()?.id ?? '';
    store.close();
    const refused = await runCli(['serve', '--resume', runId, '--tasks', tasksPath, '--db', 'file.db'], { cwd: directory, env: {} });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /stored all 24 of its tasks from .*tasks\.jsonl: a resume reads them from the store/);
    assert.doesNotMatch(refused.stderr, /serving/);
  });

  test('serve --resume stores the rest of the tasks (from the moved file) and serves every episode', async () => {
    const dbPath = join(directory, 'stopped.db');
    // The run as a serve leaves it when stopped after 10 of its tasks were stored: its agent was never asked anything.
    const controller = new AbortController();
    async function* stopping(): AsyncGenerator<Task> {
      let read = 0;
      for await (const task of streamTasksFile(tasksPath, { suiteId: funcgenSuite.id })) {
        if (read === 10) {
          controller.abort();
          return;
        }
        read += 1;
        yield task;
      }
    }
    const agent = createMcpAgentSource('scripted-agent', () => Promise.reject(new Error('no client in this test')));
    const stopped = await runEvaluation({
      suite: funcgenSuite, tasks: stopping(), modelRef: agent.ref, agent, seed: 0, params, dbPath, signal: controller.signal,
      tasksFile: { path: tasksPath, validate: false },
    });
    assert.equal(stopped.tasksIncomplete, 'resumable');
    const movedPath = join(directory, 'moved.jsonl');
    renameSync(tasksPath, movedPath);
    try {
      const resumed = [process.execPath, binPath, 'serve', '--resume', stopped.runId, '--stdio', '--tasks', movedPath, '--db', dbPath, '--json'];
      assert.equal(await runAgent(['--stdio', JSON.stringify(resumed), '--policy', 'nothing']), 0);
    } finally {
      renameSync(movedPath, tasksPath);
    }
    const report = await runCli(['report', stopped.runId, '--db', dbPath, '--format', 'json'], { cwd: directory, env: {} });
    assert.equal(report.code, 0, report.stderr);
    const summary = JSON.parse(report.stdout) as { tasks: number; episodes: number; infrastructureErrors: number; tasksIncomplete?: string };
    assert.deepEqual([summary.tasks, summary.episodes, summary.infrastructureErrors, summary.tasksIncomplete], [taskCount, taskCount, 0, undefined]);
  });
});

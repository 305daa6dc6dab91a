/**
 * `run --tasks <file>` stopped while the file's tasks were being stored (killed, or Ctrl-C) is continued by
 * `run --resume <run>`, which reads the rest from the same file (or, moved, from where `--tasks` says it is now). Before,
 * such a run could only be started again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { formatTasksJsonl } from '../../src/runner/read-tasks-file.ts';
import { funcgenSuite } from '../../src/suites/funcgen/index.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { partlyStoredRun } from './partly-stored-run.ts';
import { binPath, keylessEnvironment, runCli, temporaryDirectory } from './run-cli.ts';

const taskCount = 4000;

async function stopWhileStoring(directory: string, database: string, signal: NodeJS.Signals): Promise<{ id: string; stored: number; code: number | null; output: string }> {
  const child = spawn(process.execPath, [binPath, 'run', 'funcgen', '--tasks', 'tasks.jsonl', '--model', 'builtin/planner', '--db', database], { cwd: directory, env: keylessEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
  // What the run prints as it stops (the summary and what to do) goes to stdout, warnings to stderr: both are read.
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = once(child, 'exit');
  for (let waited = 0; ; waited += 5) {
    const seen = partlyStoredRun(join(directory, database));
    if (seen) {
      child.kill(signal);
      const [code] = await exited as [number | null];
      return { ...seen, code, output };
    }
    if (child.exitCode !== null || waited > 120_000) {
      child.kill('SIGKILL');
      throw new Error(`the run was not seen storing its tasks (exit ${child.exitCode}): ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('a tasks-file run killed or interrupted while storing its tasks is resumed from the file', async () => {
  const directory = temporaryDirectory();
  const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, { core: '3', depth: '2', connected: '1', disconnected: '1' });
  writeFileSync(join(directory, 'tasks.jsonl'), formatTasksJsonl(await generateTasks(funcgenSuite, { seed: 2, count: taskCount, params, validate: false })));

  for (const signal of ['SIGKILL', 'SIGINT'] as const) {
    const database = `${signal}.db`;
    const stopped = await stopWhileStoring(directory, database, signal);
    assert.ok(stopped.stored < taskCount, `${signal}: all ${taskCount} tasks were stored before the stop`);
    if (signal === 'SIGINT') {
      assert.equal(stopped.code, 130, stopped.output);
      assert.match(stopped.output, new RegExp(`store the rest and run the missing episodes with: toolforge run --resume ${stopped.id} --db ${database}`));
    }
    // The killed run's file is moved: the resume says how to name its new place, and reads it from there.
    const moved = signal === 'SIGKILL';
    if (moved) {
      renameSync(join(directory, 'tasks.jsonl'), join(directory, 'moved.jsonl'));
      const refused = await runCli(['run', '--resume', stopped.id, '--db', database], { cwd: directory });
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /tasks\.jsonl: cannot read tasks file/);
      assert.match(refused.stderr, new RegExp(`or pass where it is now: 'toolforge run --resume ${stopped.id} --db ${database.replace('.', '\\.')} --tasks <file>'`));
    }
    const resumed = await runCli(['run', '--resume', stopped.id, '--db', database, '--json', ...(moved ? ['--tasks', 'moved.jsonl'] : [])], { cwd: directory });
    if (moved) renameSync(join(directory, 'moved.jsonl'), join(directory, 'tasks.jsonl'));
    assert.equal(resumed.code, 0, `${signal}: ${resumed.stderr}`);
    const summary = JSON.parse(resumed.stdout) as { tasks: number; episodes: number; passRate: number; infrastructureErrors: number };
    assert.deepEqual([summary.tasks, summary.episodes, summary.infrastructureErrors], [taskCount, taskCount, 0], signal);
    assert.equal(summary.passRate, 1, `${signal}: builtin/planner solves every funcgen task`);
  }
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/core/errors.ts';
import type { Task } from '../../../src/core/task.ts';
import { resolveModelSource } from '../../../src/runner/resolve-model-source.ts';
import { runFuncgenEpisode } from './episode-harness.ts';
import { funcgenSuite } from '../../../src/suites/funcgen/index.ts';
import { generateFuncgenTask } from '../../../src/suites/funcgen/task-generator.ts';

const tasks: Task[] = Array.from({ length: 12 }, (_, index) => generateFuncgenTask({ seed: 3, index, params: { core: 6, depth: 3, connected: 2, disconnected: 2, restate: false } }));

async function episode(ref: string, task: Task, trial = 0) {
  return runFuncgenEpisode(task, 'calls', resolveModelSource(funcgenSuite, ref).forEpisode({ task, trial, mode: 'calls' }));
}

describe('builtin/noisy', () => {
  test('p=0 is the planner: every task passes with the minimum calls', async () => {
    for (const task of tasks) {
      const { score, state } = await episode('builtin/noisy?p=0', task);
      assert.equal(score.passed, true, score.reason);
      assert.equal(state.calls.length, task.stats.calls);
    }
  });

  test('p=1 passes every linked value wrong: no task passes, each failure is an incorrect value', async () => {
    for (const task of tasks) {
      const { score } = await episode('builtin/noisy?p=1', task);
      assert.equal(score.passed, false);
      assert.equal(score.failure, 'arguments.incorrect-value');
    }
  });

  test('the default p=0.1 slips on some tasks and not others, deterministically per task and trial', async () => {
    const outcomes = await Promise.all(tasks.map(async (task) => (await episode('builtin/noisy', task)).score.passed));
    assert.ok(outcomes.includes(true) && outcomes.includes(false), `outcomes ${outcomes}`);
    const again = await Promise.all(tasks.map(async (task) => (await episode('builtin/noisy', task)).score.passed));
    assert.deepEqual(again, outcomes);
    const transcripts = async (trial: number) => Promise.all(tasks.map(async (task) => JSON.stringify((await episode('builtin/noisy?p=0.5', task, trial)).outcome.messages)));
    assert.deepEqual(await transcripts(0), await transcripts(0));
    assert.notDeepEqual(await transcripts(0), await transcripts(1));
  });

  test('bad parameters are refused before anything runs, naming the fix', () => {
    for (const ref of ['builtin/noisy?p=1.5', 'builtin/noisy?p=', 'builtin/noisy?p=abc', 'builtin/noisy?q=0.1', 'builtin/planner?p=0.1']) {
      assert.throws(() => resolveModelSource(funcgenSuite, ref), ConfigError, ref);
    }
    assert.throws(() => resolveModelSource(funcgenSuite, 'builtin/noisy?p=2'), /p must be a probability in \[0, 1\], got '2'/);
    assert.throws(() => resolveModelSource(funcgenSuite, 'builtin/planner?p=0.1'), /takes no parameters/);
  });
});

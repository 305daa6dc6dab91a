import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEvaluation } from '../../../src/runner/run-evaluation.ts';
import type { Mode } from '../../../src/core/mode.ts';
import type { Task } from '../../../src/core/task.ts';
import { runBuiltinEpisode } from './episode-harness.ts';
import { funcgenSuite } from '../../../src/suites/funcgen/index.ts';
import { paperKnobGrid } from '../../../src/suites/funcgen/paper-grid.ts';
import { planFuncgenTask } from '../../../src/suites/funcgen/planner-policy.ts';
import { generateFuncgenTask } from '../../../src/suites/funcgen/task-generator.ts';
import { parseFuncgenPrompt } from '../../../src/suites/funcgen/prompt.ts';
import { applyTransforms, parseTransformRequest } from '../../../src/transforms/registry.ts';

/**
 * Agent runs use one task per setting of the paper grid (230 tasks: every core size, depth and
 * irrelevant split), rather than the 1,150 of the structural test, to keep the suite fast.
 */
const gridTasks: Task[] = paperKnobGrid().map((params, setting) => generateFuncgenTask({ seed: 2024, index: setting, params }));

async function passRate(tasks: readonly Task[], mode: Mode, builtin: string): Promise<{ passed: number; failedIds: string[] }> {
  let passed = 0;
  const failedIds: string[] = [];
  for (const task of tasks) {
    const { score } = await runBuiltinEpisode(task, mode, builtin);
    if (score.passed) passed += 1;
    else failedIds.push(task.id);
  }
  return { passed, failedIds };
}

describe('funcgen built-in models through the real agent, environment and scorer', () => {
  for (const builtin of ['oracle', 'planner']) {
    test(`${builtin} passes 100% of the paper grid (230 tasks) in calls mode, with exactly the minimum calls and no faults`, async () => {
      for (const task of gridTasks) {
        const { score, outcome, state } = await runBuiltinEpisode(task, 'calls', builtin);
        assert.equal(score.passed, true, `${builtin} failed ${task.id}: ${score.reason}`);
        assert.equal(outcome.termination, 'final-answer');
        assert.equal(state.calls.length, task.stats.calls);
        assert.deepEqual(score.failureCounts, {});
        assert.equal(score.failure, undefined);
      }
    });

    test(`${builtin} passes 100% of the paper grid in react mode`, async () => {
      const result = await passRate(gridTasks, 'react', builtin);
      assert.deepEqual(result.failedIds, []);
      assert.equal(result.passed, gridTasks.length);
    });
  }

  test('the planner reads a request perturbed by case mixing and punctuation noise as a model would, and still solves it', async () => {
    // Mixed-case keywords ("VaRiABLE x = 3"), lines broken after commas, periods dropped: the planner once read the
    // request's words in lower case only and failed every case-mixed task.
    const tasks = gridTasks.filter((_, setting) => setting % 5 === 0);
    for (const kind of ['case-mix', 'punctuation']) {
      const perturbed = applyTransforms(tasks, [parseTransformRequest(`perturb:kind=${kind}`)], 11);
      assert.ok(perturbed.some((task, index) => task.query !== tasks[index].query), `${kind} changed no request`);
      const result = await passRate(perturbed, 'calls', 'planner');
      assert.deepEqual(result.failedIds, [], kind);
    }
    const mixed = parseFuncgenPrompt('USING THE TOOLS, GIVE ME THE CORRECT VALUE OF\nvARiaBLE sfhy\n  VAriABLE zanfh = -880\nvariable tsep=684');
    assert.deepEqual(mixed, { target: 'sfhy', inputs: [{ name: 'zanfh', value: -880 }, { name: 'tsep', value: 684 }] });
    // A name is read whole: a longer word is not the variable it starts with.
    assert.equal(parseFuncgenPrompt('the correct value of variable sfhyX.'), undefined);
  });

  test('oracle and planner still pass with restate=true (results carry known_values)', async () => {
    const tasks = paperKnobGrid(true).filter((_, setting) => setting % 10 === 0)
      .map((params, index) => generateFuncgenTask({ seed: 77, index, params }));
    for (const mode of ['calls', 'react'] as const) {
      assert.equal((await passRate(tasks, mode, 'oracle')).passed, tasks.length);
      assert.equal((await passRate(tasks, mode, 'planner')).passed, tasks.length);
    }
  });

  test('oracle calls everything in one turn; planner goes layer by layer (several calls per turn)', async () => {
    const task = generateFuncgenTask({ seed: 11, index: 0, params: { core: 10, depth: 3, connected: 5, disconnected: 5, restate: false } });
    const oracle = await runBuiltinEpisode(task, 'calls', 'oracle');
    const oracleTurns = oracle.outcome.messages.filter((message) => message.role === 'assistant');
    assert.deepEqual(oracleTurns.map((message) => message.role === 'assistant' && message.toolCalls.length), [10, 0]);
    const planner = await runBuiltinEpisode(task, 'calls', 'planner');
    const plannerTurns = planner.outcome.messages.filter((message) => message.role === 'assistant');
    // One turn per dependency layer (at most depth + 1), then the answer.
    assert.ok(plannerTurns.length >= 2 && plannerTurns.length <= Number(task.stats.depth) + 2);
    assert.ok(plannerTurns.some((message) => message.role === 'assistant' && message.toolCalls.length > 1));
  });

  test('the planner uses visible information only: it solves the task with `expected` removed', () => {
    const task = generateFuncgenTask({ seed: 5, index: 3, params: { core: 20, depth: 9, connected: 20, disconnected: 20, restate: false } });
    const plan = planFuncgenTask({ ...task, expected: null });
    assert.ok(!('unsolvable' in plan));
    assert.equal(plan.steps.length, 20);
    // Hiding a producer's description makes it unsolvable rather than guessing.
    const broken = planFuncgenTask({ ...task, expected: null, tools: task.tools.map((tool) => ({ ...tool, description: 'opaque' })) });
    assert.ok('unsolvable' in broken);
  });

  test('random passes at most 5% over the grid, in both modes, and produces classified faults', async () => {
    for (const mode of ['calls', 'react'] as const) {
      const episodes = [];
      for (const task of gridTasks) {
        const { score } = await runBuiltinEpisode(task, mode, 'random');
        episodes.push({ task, trial: 0, score });
      }
      const passed = episodes.filter((episode) => episode.score.passed).length;
      assert.ok(passed <= 0.05 * gridTasks.length, `random ${mode} passed ${passed}/${gridTasks.length}`);
      const summary = funcgenSuite.summarize(episodes);
      assert.ok(summary.metrics.callErrors > 0);
      assert.ok(summary.metrics.shareValueNotYetKnown > 0 && summary.metrics.shareIncorrectValue > 0);
    }
  });

  test('the report\'s Figure 4 and Figure 8 tables come from stored episodes (planner, then random, on the 5-core grid)', async () => {
    // 5 core nodes: 4 depths x 10 irrelevant splits = 40 tasks: No Extra 4, and 12 each of Connected, Half & Half and
    // Disconnected (3 totals x 4 depths); plus 4 restated tasks (one per depth, no extra functions).
    const baseline = gridTasks.filter((task) => task.params.core === 5);
    const restated = [1, 2, 3, 4].map((depth, index) => generateFuncgenTask({ seed: 77, index, params: { core: 5, depth, connected: 0, disconnected: 0, restate: true } }));
    const directory = mkdtempSync(join(tmpdir(), 'toolforge-funcgen-'));
    try {
      const run = (modelRef: string, name: string) => runEvaluation({
        suite: funcgenSuite, tasks: [...baseline, ...restated], modelRef, seed: 2024, params: {}, dbPath: join(directory, `${name}.db`),
      });
      const table = (summary: Awaited<ReturnType<typeof run>>, title: string) => summary.tables.find((candidate) => candidate.title.startsWith(title))?.rows;
      const planner = await run('builtin/planner', 'planner');
      assert.equal(planner.episodes, 44);
      assert.deepEqual(table(planner, 'Success rate by irrelevant-function kind'), [
        ['No Extra', 8, '100.0%'], ['Connected', 12, '100.0%'], ['Half & Half', 12, '100.0%'], ['Disconnected', 12, '100.0%'],
      ]);
      assert.deepEqual(table(planner, 'Success rate without and with restated'), [['baseline', 40, '100.0%'], ['restated (mitigation)', 4, '100.0%']]);
      assert.deepEqual(table(planner, 'Failure types of calls by dependency depth')?.map((row) => row.at(-1)), [0, 0, 0, 0]);
      const random = await run('builtin/random', 'random');
      const kinds = table(random, 'Success rate by irrelevant-function kind');
      assert.deepEqual(kinds?.map((row) => [row[0], row[1]]), [['No Extra', 8], ['Connected', 12], ['Half & Half', 12], ['Disconnected', 12]]);
      const errorsByDepth = table(random, 'Failure types of calls by dependency depth');
      assert.deepEqual(errorsByDepth?.map((row) => [row[0], row[1]]), [[5, 1], [5, 2], [5, 3], [5, 4]]);
      assert.equal(errorsByDepth?.reduce((sum, row) => sum + Number(row.at(-1)), 0), random.metrics.callErrors);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('random is deterministic per task and trial', async () => {
    const task = gridTasks[40];
    const first = await runBuiltinEpisode(task, 'calls', 'random', 0);
    const again = await runBuiltinEpisode(task, 'calls', 'random', 0);
    assert.equal(JSON.stringify(first.outcome.messages), JSON.stringify(again.outcome.messages));
    const other = await runBuiltinEpisode(task, 'calls', 'random', 1);
    assert.notEqual(JSON.stringify(first.outcome.messages), JSON.stringify(other.outcome.messages));
  });
});

/**
 * The must-shows of the stateful building blocks: 60 programs per scenario with 5 API calls on every path, every
 * reference program passing its own test cases, both branches exercised, same seed => identical tasks, and the
 * oracle's verdicts (reference 100%, do-nothing 0%, each error type reachable).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../../../src/core/json.ts';
import { Rng } from '../../../src/core/rng.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { generateStatefulTasks, statefulPrompt, type StatefulTaskData } from '../../../src/suites/stateful/generate-stateful-tasks.ts';
import { evaluateProgram } from '../../../src/suites/stateful/oracle.ts';
import { scenarioIds, type ScenarioId } from '../../../src/suites/stateful/stateful-backend.ts';
import { statefulScenarios } from '../../../src/suites/stateful/stateful-scenarios.ts';

let sandbox: Sandbox;
before(() => {
  sandbox = createSandbox({ poolSize: 2 });
});
after(async () => {
  await sandbox.dispose();
});

const runs = new Map<ScenarioId, StatefulTaskData[]>();

for (const scenario of scenarioIds) {
  describe(`${scenario}: 60 generated programs`, () => {
    let tasks: StatefulTaskData[];
    before(async () => {
      const run = await generateStatefulTasks({ scenario, seed: 0, count: 60 }, sandbox);
      assert.deepEqual(run.rejected, [], 'every reference program passes its own test cases');
      tasks = run.tasks;
      runs.set(scenario, tasks);
    });

    test('60 tasks, 5 API calls on every execution path, unique ids, an instruction and a prompt each', () => {
      assert.equal(tasks.length, 60);
      for (const task of tasks) {
        for (const path of task.program.paths) assert.equal(path.length, 5, `${task.id} ${path.join(',')}`);
        assert.ok(task.instruction.length > 50);
        assert.ok(statefulPrompt(task).includes(task.instruction));
        assert.ok(task.statistics.functionCalls >= 5);
      }
      assert.equal(new Set(tasks.map((task) => task.id)).size, 60);
    });

    test('branched programs have two test cases that take the if- then the else-branch; straight ones one', () => {
      const branched = tasks.filter((task) => task.program.branch);
      assert.ok(branched.length >= 20, `${branched.length} branched programs`);
      assert.ok(tasks.length - branched.length >= 3, 'some programs are straight-line');
      for (const task of tasks) {
        assert.deepEqual(task.testCases.map((testCase) => testCase.branch), task.program.branch ? ['if', 'else'] : ['none'], task.id);
      }
    });

    test('the reference passes every test case; a do-nothing program passes none', async () => {
      for (const task of tasks.slice(0, 8)) {
        const target = { sandbox, createBackend: statefulScenarios[scenario].createBackend, fixtures: task.program.fixtures };
        const reference = await evaluateProgram(target, task.testCases, task.program.body, statefulScenarios[scenario].comparison);
        assert.ok(reference.passed, `${task.id}: ${reference.verdicts.join(',')}`);
        const nothing = await evaluateProgram(target, task.testCases, '', statefulScenarios[scenario].comparison);
        assert.equal(nothing.passed, false, task.id);
      }
    });

    test('plausible random programs (builtin/random) score near 0', async () => {
      const definition = statefulScenarios[scenario];
      let passed = 0;
      for (const task of tasks.slice(0, 15)) {
        const body = definition.randomProgramBody(task.program, new Rng(task.index));
        const target = { sandbox, createBackend: definition.createBackend, fixtures: task.program.fixtures };
        if ((await evaluateProgram(target, task.testCases, body, definition.comparison)).passed) passed += 1;
      }
      assert.ok(passed <= 2, `${passed} of 15 random programs passed`);
    });
  });
}

describe('determinism', () => {
  test('same seed => identical tasks (bytes); another seed => different tasks', async () => {
    for (const scenario of scenarioIds) {
      const first = await generateStatefulTasks({ scenario, seed: 5, count: 4 }, sandbox);
      const second = await generateStatefulTasks({ scenario, seed: 5, count: 4 }, sandbox);
      const other = await generateStatefulTasks({ scenario, seed: 6, count: 4 }, sandbox);
      assert.equal(canonicalJson(first), canonicalJson(second), scenario);
      assert.notEqual(canonicalJson(first.tasks.map((task) => task.program)), canonicalJson(other.tasks.map((task) => task.program)), scenario);
    }
  });

  test('knobs: calls sets the path length, branch=none gives straight-line programs', async () => {
    const run = await generateStatefulTasks({ scenario: 'tensor', seed: 1, count: 5, calls: 3, branch: 'none' }, sandbox);
    for (const task of run.tasks) {
      assert.equal(task.program.branch, undefined);
      assert.deepEqual(task.program.paths.map((path) => path.length), [3]);
    }
  });
});

describe('verdicts (paper RQ4 error types)', () => {
  test('syntax error, runtime error, wrong result and wrong state are each reached', async () => {
    const task = (await generateStatefulTasks({ scenario: 'session', seed: 2, count: 1, branch: 'none' }, sandbox)).tasks[0];
    const definition = statefulScenarios.session;
    const target = { sandbox, createBackend: definition.createBackend, fixtures: task.program.fixtures };
    const verdict = async (body: string) => (await evaluateProgram(target, task.testCases, body, definition.comparison)).verdicts[0];
    assert.equal(await verdict(task.program.body), 'passed');
    assert.equal(await verdict(`${task.program.body}\nlet = ;`), 'syntax-error');
    assert.equal(await verdict(`${task.program.body}\nthrow new Error('boom');`), 'runtime-error');
    assert.equal(await verdict(`${task.program.body}\nRESULT = 'something else';`), 'wrong-result');
    assert.equal(await verdict(`${task.program.body}\nawait axios.post(BASE_URL + '/api/sessions/extra_source/group', { extra: true });`), 'wrong-state');
  });
});

/**
 * The contract every suite must keep, registered as node:test cases for any Suite: deterministic
 * generation, serialisable tasks, the oracle solving everything through the real runner, the random
 * model near zero, garbage output scored (not thrown), every score's details of the suite's
 * detailsSchema (and stored details that break it refused by name), and bad knobs rejected with a ConfigError.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { canonicalJson } from '../../src/core/json.ts';
import type { Mode } from '../../src/core/mode.ts';
import type { ScoreDetails } from '../../src/core/score.ts';
import { taskSchema } from '../../src/core/task.ts';
import { isWellFormedTask } from '../../src/core/well-formed-task.ts';
import type { Task } from '../../src/core/task.ts';
import { createScriptedModel } from '../../src/models/builtin/scripted-model.ts';
import type { ModelSource } from '../../src/models/spec.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { resolveModelSource } from '../../src/runner/resolve-model-source.ts';
import { runEpisode } from '../../src/runner/run-episode.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import type { Suite, TaskLine } from '../../src/suites/spec.ts';

export type SuiteCaseOptions = {
  /** Tasks for the oracle/random runs (kept small: the suite's own tests go wider). */
  count: number;
  /** Knob values for the generation under test. */
  params?: Record<string, string>;
  /** Highest pass rate the random model may reach. */
  randomCeiling?: number;
  /** Whether a different seed must give different tasks (false for pure importers). */
  seedChangesTasks?: boolean;
};

const garbageOutputs = ['', 'lorem ipsum dolor sit amet', '{"unterminated": ', '```\n%%%\n```'];

/** Every scored episode of the run has details, and they pass the suite's detailsSchema. */
function assertStoredDetails(suite: Suite, store: ResultsStore, runId: string): void {
  for (const episode of store.listEpisodes(runId)) {
    if (episode.status !== 'scored') continue;
    const parsed = suite.detailsSchema.safeParse(episode.score?.details);
    assert.ok(parsed.success, `${episode.taskId} trial ${episode.trial}: details break the detailsSchema: ${parsed.error?.issues[0]?.path.join('.')}: ${parsed.error?.issues[0]?.message}`);
  }
}

/** Details of the wrong kind in every top-level field (a string where there was anything else, else a number). */
function brokenDetails(details: ScoreDetails): ScoreDetails {
  return Object.fromEntries(Object.entries(details).map(([key, value]) => [key, typeof value === 'string' ? 0 : 'broken']));
}

export function runSuiteCases(suite: Suite, options: SuiteCaseOptions): void {
  const params = resolveKnobs(suite.id, suite.knobs, options.params ?? {});
  const generate = (seed: number, count = options.count): Promise<Task[]> =>
    generateTasks(suite, { seed, count, params, validate: false });

  describe(`suite conformance: ${suite.id}`, () => {
    test('the same seed and knobs give byte-identical tasks', async () => {
      const first = canonicalJson(await generate(11));
      const second = canonicalJson(await generate(11));
      assert.equal(first, second);
      if (options.seedChangesTasks !== false) assert.notEqual(canonicalJson(await generate(12)), first);
    });

    const { streamTasks } = suite;
    if (streamTasks) {
      test('the task stream is generate\'s tasks, in order', async () => {
        const streamed: Task[] = [];
        for await (const task of streamTasks({ seed: 4, count: options.count, params })) streamed.push(task);
        assert.equal(canonicalJson(streamed), canonicalJson(await suite.generate({ seed: 4, count: options.count, params })));
      });

      test('a task stream started at task k is the whole stream from k, the earlier tasks not made', async () => {
        const whole = await suite.generate({ seed: 4, count: options.count, params });
        for (const from of [1, Math.floor(options.count / 2), options.count]) {
          const streamed: Task[] = [];
          for await (const task of streamTasks({ seed: 4, count: options.count, params }, { from })) streamed.push(task);
          assert.equal(canonicalJson(streamed), canonicalJson(whole.slice(from)), `from ${from}`);
        }
      });
    }

    const { streamTaskLines } = suite;
    if (streamTaskLines) {
      test('the task lines it writes itself are JSON.stringify of its tasks, byte for byte, from any start', async () => {
        assert.ok(suite.makesTasksByIndex, 'streamTaskLines is only for a suite that makes its tasks by index');
        for (const seed of [4, 9]) {
          const whole = await suite.generate({ seed, count: options.count, params });
          for (const from of [0, 1, Math.floor(options.count / 2)]) {
            const lines: TaskLine[] = [...streamTaskLines.call(suite, { seed, count: options.count, params }, { from })];
            assert.deepEqual(lines.map((taskLine) => taskLine.id), whole.slice(from).map((task) => task.id), `seed ${seed} from ${from}`);
            lines.forEach((taskLine, index) => assert.equal(taskLine.line, JSON.stringify(whole[from + index]), `seed ${seed} task ${taskLine.id}`));
          }
        }
      });
    }

    test('tasks are valid, serialisable, correctly labelled and have unique ids', async () => {
      const tasks = await generate(3);
      assert.equal(tasks.length, options.count);
      assert.equal(new Set(tasks.map((task) => task.id)).size, tasks.length);
      for (const task of tasks) {
        assert.deepEqual(JSON.parse(JSON.stringify(task)), task, `task ${task.id} does not survive JSON`);
        assert.ok(taskSchema.safeParse(task).success, `task ${task.id} breaks the task schema`);
        // The quick check takes the suite's tasks as they are: zod's slower walk is left for tasks it is unsure of.
        assert.ok(isWellFormedTask(task), `task ${task.id} is sent to zod by the quick task check (well-formed-task.ts)`);
        assert.ok(isWellFormedTask(JSON.parse(JSON.stringify(task))), `task ${task.id} read back from JSON is sent to zod by the quick task check`);
        assert.deepEqual(task.suite, { id: suite.id, version: suite.version });
        assert.ok(task.id.startsWith(`${suite.id}/`), `task id ${task.id} lacks the suite prefix`);
        for (const mode of task.modes) assert.ok(suite.modes.includes(mode), `task mode ${mode} is not a suite mode`);
        // The request apart from the scaffolding, verbatim where the model reads it (perturbations rewrite it).
        assert.ok(task.query, `task ${task.id} has no query`);
        const query = task.query ?? '';
        assert.ok(task.prompt.some((message) => message.content.includes(query)) || task.starter?.includes(query), `task ${task.id}: its query is not in its prompt`);
        assert.equal(task.origin, undefined, `a suite's own task ${task.id} has no origin`);
        // The knobs it made the task with pass its own check of them (as a tasks file's do when a run reads them).
        assert.doesNotThrow(() => suite.checkTaskParams?.(task.params), `task ${task.id}: its knobs fail checkTaskParams`);
      }
    });

    for (const mode of suite.modes) {
      test(`builtin/oracle passes 100% in mode ${mode} through the runner`, async () => {
        const tasks = (await generate(5)).filter((task) => task.modes.includes(mode));
        if (tasks.length === 0) return;
        const store = openResultsStore(':memory:');
        try {
          const summary = await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', mode, seed: 5, params, store, concurrency: 2 });
          assert.equal(summary.infrastructureErrors, 0);
          assert.equal(summary.episodes, tasks.length);
          assert.equal(summary.passRate, 1, `oracle failures: ${JSON.stringify(summary.failures)}`);
          for (const value of Object.values(summary.metrics)) assert.ok(Number.isFinite(value) || Number.isNaN(value));
          assertStoredDetails(suite, store, summary.runId);
        } finally {
          store.close();
        }
      });
    }

    test('builtin/random stays near zero', async () => {
      const tasks = await generate(7);
      const store = openResultsStore(':memory:');
      try {
        const summary = await runEvaluation({ suite, tasks, modelRef: 'builtin/random', seed: 7, params, store, concurrency: 2 });
        assert.equal(summary.infrastructureErrors, 0);
        assert.ok(summary.passRate <= (options.randomCeiling ?? 0.05), `random passed ${summary.passRate}`);
        assertStoredDetails(suite, store, summary.runId);
      } finally {
        store.close();
      }
    });

    for (const mode of suite.modes) {
      test(`garbage model output in mode ${mode} is a scored failure, never a crash`, async () => {
        const [task] = (await generate(9, 1)).filter((candidate) => candidate.modes.includes(mode));
        if (!task) return;
        for (const garbage of garbageOutputs) {
          const model: ModelSource = {
            ref: 'test/garbage',
            forEpisode: () => createScriptedModel({ modelId: 'garbage', mode, policy: () => ({ type: 'text', text: garbage }) }),
          };
          const result = await runEpisode({ suite, task, trial: 0, mode, model });
          assert.equal(result.score.passed, false, `garbage ${JSON.stringify(garbage)} passed`);
          assert.ok(result.score.failure, `garbage ${JSON.stringify(garbage)} has no failure code`);
          assert.ok(suite.detailsSchema.safeParse(result.score.details).success, `garbage ${JSON.stringify(garbage)}: details break the detailsSchema`);
        }
      });
    }

    test('a task whose expected breaks the suite\'s expectedSchema is refused before anything runs, naming the task and field', async () => {
      const [task] = await generate(1, 1);
      const store = openResultsStore(':memory:');
      try {
        await assert.rejects(
          runEvaluation({ suite, tasks: [{ ...task, expected: 'not ground truth' }], modelRef: 'builtin/oracle', seed: 1, params, store }),
          (error: unknown) => error instanceof ConfigError && error.code === 'input.invalid' && error.message.includes(`task '${task.id}': expected`) && /fix:/.test(error.message));
        assert.equal(store.listRuns().length, 0);
      } finally {
        store.close();
      }
    });

    test('stored details that break the suite\'s detailsSchema are refused when summarized, naming the episode and field', async () => {
      const [task] = await generate(13, 1);
      const mode = task.modes[0];
      const result = await runEpisode({ suite, task, trial: 0, mode, model: resolveModelSource(suite, 'builtin/oracle') });
      assert.ok(result.score.details, 'the oracle\'s score has details');
      const details = brokenDetails(result.score.details);
      assert.ok(suite.summarize([{ task, trial: 0, score: result.score }]).metrics, 'the summary reads valid details');
      assert.throws(() => suite.summarize([{ task, trial: 0, score: result.score }, { task, trial: 1, score: { ...result.score, details } }]), (error: unknown) =>
        error instanceof ConfigError && error.code === 'store.invalid' && error.message.includes(`task '${task.id}' trial 1`)
        && Object.keys(details).some((key) => error.message.includes(`details.${key}`)) && /toolforge rescore/.test(error.message));
    });

    test('an unknown knob and a mode the suite lacks are rejected with ConfigErrors', async () => {
      assert.throws(() => resolveKnobs(suite.id, suite.knobs, { 'no-such-knob': '1' }),
        (error: unknown) => error instanceof ConfigError && error.code === 'config.unknown-knob' && /fix:/.test(error.message));
      const missing = (['calls', 'react', 'sequence', 'code'] as Mode[]).find((mode) => !suite.modes.includes(mode));
      if (!missing) return;
      const tasks = await generate(1, 1);
      await assert.rejects(
        runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', mode: missing, seed: 1, params, store: openResultsStore(':memory:') }),
        (error: unknown) => error instanceof ConfigError && error.code === 'config.unsupported-mode');
    });
  });
}

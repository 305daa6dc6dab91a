import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../../src/core/errors.ts';
import type { JsonObject } from '../../src/core/json.ts';
import type { Task } from '../../src/core/task.ts';
import { streamGeneratedTasks } from '../../src/runner/generate-tasks.ts';
import { resumeEvaluation, runEvaluation } from '../../src/runner/run-evaluation.ts';
import type { RunOptions } from '../../src/runner/run-evaluation.ts';
import type { RunProgressEvent } from '../../src/runner/run-progress.ts';
import type { TaskRecipe } from '../../src/runner/task-import.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { funcgenSuite } from '../../src/suites/funcgen/index.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { temporaryDirectory } from './test-helpers.ts';

const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, { core: '4', connected: '2', disconnected: '2' }) as JsonObject;

/** A built-in model's run of funcgen's own tasks, with the recipe the CLI passes (so they run as made) or without it. */
function runOptions(dbPath: string, recipe: TaskRecipe, asMade: boolean, extra: Partial<RunOptions> = {}): RunOptions {
  return {
    suite: funcgenSuite, tasks: streamGeneratedTasks(funcgenSuite, { seed: recipe.seed, count: recipe.count, params }), modelRef: 'builtin/planner',
    seed: recipe.seed, params, dbPath, trials: 2, ...(asMade ? { taskRecipe: recipe } : {}), ...extra,
  };
}

/** What two runs of the same work must store alike: every task row, and every episode row but its run, times and durations. */
function storedWork(dbPath: string): { tasks: unknown[]; episodes: unknown[]; runs: unknown[] } {
  const database = new Database(dbPath, { readonly: true });
  try {
    const timing = /\\*"(startMs|durationMs)\\*":\d+/g;
    return {
      tasks: database.prepare('SELECT ordinal, task_id, task, phrasing, first_mode FROM run_tasks ORDER BY ordinal').all(),
      episodes: (database.prepare(`SELECT task_id, trial, model, mode, status, termination, passed, value, failure, score, messages, messages_encoding, input_tokens,
        output_tokens, attempts, error, retries, trace, prompt_messages FROM episodes ORDER BY task_id, trial`).all() as Record<string, unknown>[])
        .map((row) => JSON.parse(JSON.stringify(row, (key, value: unknown) => (typeof value === 'string' ? value.replace(timing, '') : value))) as unknown),
      runs: database.prepare('SELECT status, tasks_complete FROM runs').all(),
    };
  } finally {
    database.close();
  }
}

/** The run's stored tasks as another connection sees them, while it runs. */
function storedTaskCount(dbPath: string): number {
  const database = new Database(dbPath, { readonly: true, fileMustExist: true });
  const { count } = database.prepare('SELECT COUNT(*) AS count FROM run_tasks').get() as { count: number };
  database.close();
  return count;
}

describe('a built-in model runs a recipe\'s tasks as they are made', () => {
  const directory = temporaryDirectory();

  test('each task is stored before its episodes, the run starts before its tasks are all stored, and it stores what a stored-first run stores', async () => {
    // 1,100 tasks x 2 trials: past 2,048 episodes, so the tasks go through the episode writer thread.
    for (const count of [300, 1100]) {
      const recipe: TaskRecipe = { seed: 9, count, params };
      const madePath = join(directory, `made-${count}.db`);
      const events: RunProgressEvent[] = [];
      let storedAtFirstEnd: number | undefined;
      const made = await runEvaluation(runOptions(madePath, recipe, true, {
        onProgress: (event) => {
          events.push(event);
          if (event.type === 'episode-end' && storedAtFirstEnd === undefined) storedAtFirstEnd = storedTaskCount(madePath);
        },
      }));
      assert.deepEqual([made.status, made.tasks, made.episodes, made.passRate], ['finished', count, 2 * count, 1]);
      assert.ok(storedAtFirstEnd !== undefined && storedAtFirstEnd < count, `${storedAtFirstEnd} of ${count} tasks stored when the first episode ended`);
      const start = events.find((event) => event.type === 'run-start');
      assert.deepEqual(start?.type === 'run-start' && [start.totalEpisodes, start.tasksImporting], [2 * count, undefined]);
      const firstEnd = events.findIndex((event) => event.type === 'episode-end');
      assert.ok(firstEnd > events.indexOf(start!));

      const firstPath = join(directory, `stored-first-${count}.db`);
      await runEvaluation(runOptions(firstPath, recipe, false));
      assert.deepEqual(storedWork(madePath), storedWork(firstPath));
    }
  });

  test('a recipe of unknown length reports its size when its last task is made', async () => {
    const recipe: TaskRecipe = { seed: 4, params, selection: { taskIds: ['funcgen/4/1?'] } };
    const events: RunProgressEvent[] = [];
    const tasks = (async function* () {
      for await (const task of streamGeneratedTasks(funcgenSuite, { seed: 4, count: 30, params })) if (/^funcgen\/4\/1.$/.test(task.id)) yield task;
    })();
    const summary = await runEvaluation({ ...runOptions(join(directory, 'unknown.db'), recipe, true), tasks, onProgress: (event) => events.push(event) });
    assert.deepEqual([summary.tasks, summary.episodes], [10, 20]);
    const start = events.find((event) => event.type === 'run-start');
    assert.deepEqual(start?.type === 'run-start' && [start.totalEpisodes, start.tasksImporting], [0, true]);
    const planned = events.find((event) => event.type === 'run-planned');
    assert.deepEqual(planned?.type === 'run-planned' && [planned.plannedEpisodes, planned.totalEpisodes], [20, 20]);
  });

  test('stopped while its tasks are made, it keeps whole batches of tasks and no episode without its task; resume finishes it to the same run', async () => {
    const recipe: TaskRecipe = { seed: 3, count: 400, params };
    const dbPath = join(directory, 'stopped.db');
    const stop = new AbortController();
    let ended = 0;
    const stopped = await runEvaluation(runOptions(dbPath, recipe, true, {
      signal: stop.signal, onProgress: (event) => { if (event.type === 'episode-end' && (ended += 1) === 50) stop.abort(); },
    }));
    assert.equal(stopped.status, 'cancelled');
    assert.equal(stopped.tasksIncomplete, 'resumable');
    assert.ok(stopped.tasks > 0 && stopped.tasks < 400 && stopped.tasks % 16 === 0, `${stopped.tasks} tasks stored when it stopped`);
    const store = openResultsStore(dbPath);
    const runId = stopped.runId;
    const storedIds = new Set(store.listTaskIds(runId));
    const keys = store.listEpisodeKeys(runId);
    assert.ok(keys.length >= 50 && keys.every((episode) => storedIds.has(episode.taskId)), `${keys.length} episodes, each of a stored task`);
    store.close();
    const resumed = await resumeEvaluation({ runId, dbPath });
    assert.deepEqual([resumed.status, resumed.tasks, resumed.episodes, resumed.passRate], ['finished', 400, 800, 1]);
    const plainPath = join(directory, 'unstopped.db');
    await runEvaluation(runOptions(plainPath, recipe, true));
    assert.deepEqual(storedWork(dbPath), storedWork(plainPath));
  });

  test('a task refused after episodes ran leaves no run behind, as one refused before the run starts', async () => {
    const recipe: TaskRecipe = { seed: 6, count: 60, params };
    const dbPath = join(directory, 'refused.db');
    const tasks = (async function* (): AsyncGenerator<Task> {
      let index = 0;
      for await (const task of streamGeneratedTasks(funcgenSuite, { seed: 6, count: 60, params })) {
        // The 41st task has the id of the 40th: a stream a library caller got wrong.
        yield index === 40 ? { ...task, id: 'funcgen/6/39' } : task;
        index += 1;
      }
    })();
    let ended = 0;
    await assert.rejects(runEvaluation({ ...runOptions(dbPath, recipe, true), tasks, onProgress: (event) => { if (event.type === 'episode-end') ended += 1; } }),
      (error: unknown) => error instanceof ConfigError && /task id 'funcgen\/6\/39' appears twice/.test(error.message));
    assert.ok(ended > 0, 'episodes ran before the refused task was made');
    const store = openResultsStore(dbPath);
    assert.deepEqual(store.listRuns(), []);
    store.close();
  });
});

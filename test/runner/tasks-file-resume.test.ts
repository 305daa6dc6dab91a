import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../src/core/errors.ts';
import type { JsonObject } from '../../src/core/json.ts';
import type { Task } from '../../src/core/task.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { formatTasksJsonl, streamTasksFile } from '../../src/runner/read-tasks-file.ts';
import { resumeEvaluation, runEvaluation } from '../../src/runner/run-evaluation.ts';
import type { RunSummary } from '../../src/runner/summarize-run.ts';
import type { TaskSelection } from '../../src/runner/select-tasks.ts';
import { selectTaskStream } from '../../src/runner/select-tasks.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { funcgenSuite } from '../../src/suites/funcgen/index.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { temporaryDirectory } from './test-helpers.ts';

const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, { core: '3', depth: '2', connected: '1', disconnected: '1' }) as JsonObject;
const taskCount = 300;

/** The file's tasks as `run --tasks` reads them; with `stopAfter`, the stream ends there as Ctrl-C ends it (the run is told to stop). */
async function* fileTasks(path: string, selection: TaskSelection, stop?: { after: number; controller: AbortController }): AsyncGenerator<Task> {
  let read = 0;
  for await (const task of selectTaskStream(streamTasksFile(path, { suiteId: funcgenSuite.id }), selection)) {
    if (stop && read === stop.after) {
      stop.controller.abort();
      return;
    }
    read += 1;
    yield task;
  }
}

function storedTaskCount(dbPath: string, runId: string): number {
  const store = openResultsStore(dbPath);
  try {
    return store.listTaskIds(runId).length;
  } finally {
    store.close();
  }
}

/** What a summary says about the run's results (not its id or timing). */
function comparable(summary: RunSummary): unknown {
  return { tasks: summary.tasks, episodes: summary.episodes, passRate: summary.passRate, metrics: summary.metrics, status: summary.status };
}

describe('a run of a tasks file stopped while its tasks were stored', async () => {
  const directory = temporaryDirectory();
  const tasksPath = join(directory, 'tasks.jsonl');
  writeFileSync(tasksPath, formatTasksJsonl(await generateTasks(funcgenSuite, { seed: 9, count: taskCount, params, validate: false })));

  const start = async (dbPath: string, selection: TaskSelection = {}, stopAfter = 150): Promise<RunSummary> => {
    const controller = new AbortController();
    return runEvaluation({
      suite: funcgenSuite, tasks: fileTasks(tasksPath, selection, { after: stopAfter, controller }), modelRef: 'builtin/planner', seed: 0, params, dbPath,
      signal: controller.signal, tasksFile: { path: tasksPath, validate: false, selection },
    });
  };
  const uninterrupted = async (dbPath: string, selection: TaskSelection = {}, path = tasksPath): Promise<RunSummary> => runEvaluation({
    suite: funcgenSuite, tasks: fileTasks(path, selection), modelRef: 'builtin/planner', seed: 0, params, dbPath,
  });

  test('is continued by resume from the same file: the rest stored once, the same summary as a run never stopped', async () => {
    const dbPath = join(directory, 'stopped.db');
    const stopped = await start(dbPath);
    assert.equal(stopped.status, 'cancelled');
    assert.equal(stopped.tasksIncomplete, 'resumable');
    const storedBefore = storedTaskCount(dbPath, stopped.runId);
    assert.ok(storedBefore > 0 && storedBefore < taskCount, `${storedBefore} tasks stored when it stopped`);
    const resumed = await resumeEvaluation({ runId: stopped.runId, dbPath });
    assert.equal('tasksIncomplete' in resumed, false);
    assert.equal(storedTaskCount(dbPath, stopped.runId), taskCount);
    assert.deepEqual(comparable(resumed), comparable(await uninterrupted(join(directory, 'plain.db'))));
  });

  test('keeps the selection it was started with (--task-id, --limit)', async () => {
    const dbPath = join(directory, 'limited.db');
    const selection = { taskIds: ['funcgen/9/1*', 'funcgen/9/2*'], limit: 160 };
    const stopped = await start(dbPath, selection, 70);
    assert.equal(stopped.tasksIncomplete, 'resumable');
    const resumed = await resumeEvaluation({ runId: stopped.runId, dbPath });
    assert.equal(resumed.tasks, 160);
    assert.deepEqual(comparable(resumed), comparable(await uninterrupted(join(directory, 'limited-plain.db'), selection)));
  });

  test('is refused when the file changed under the tasks it stored, naming the file, line and task, and stays resumable', async () => {
    const dbPath = join(directory, 'changed.db');
    const stopped = await start(dbPath);
    const original = readFileSync(tasksPath, 'utf8');
    const lines = original.split('\n');
    const task = JSON.parse(lines[4] as string) as Task;
    lines[4] = JSON.stringify({ ...task, limits: { ...task.limits, maxTurns: (task.limits?.maxTurns ?? 10) + 1 } });
    writeFileSync(tasksPath, lines.join('\n'));
    try {
      await assert.rejects(resumeEvaluation({ runId: stopped.runId, dbPath, databaseFlag: ' --db changed.db' }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /tasks\.jsonl:5: task 'funcgen\/9\/4' is not the task run '.*' stored as its task 4 \('funcgen\/9\/4'\): the tasks file changed since the run read it/);
        assert.match(error.fix ?? '', /resume with the tasks file the run started with, unchanged/);
        // The delete it offers is in the run's database, not the default one.
        assert.ok((error.fix ?? '').includes(`delete this one with 'toolforge delete ${stopped.runId} --db changed.db'`), error.fix);
        return true;
      });
    } finally {
      writeFileSync(tasksPath, original);
    }
    const resumed = await resumeEvaluation({ runId: stopped.runId, dbPath });
    assert.equal(resumed.tasks, taskCount);
    assert.equal('tasksIncomplete' in resumed, false);
  });

  test('is refused when the file now ends before the tasks it stored, and stays resumable', async () => {
    const dbPath = join(directory, 'truncated.db');
    const stopped = await start(dbPath);
    const original = readFileSync(tasksPath, 'utf8');
    writeFileSync(tasksPath, `${original.split('\n').slice(0, 10).join('\n')}\n`);
    try {
      await assert.rejects(resumeEvaluation({ runId: stopped.runId, dbPath }), (error: unknown) =>
        error instanceof ConfigError && /tasks\.jsonl now gives 10 tasks, but run '.*' stored \d+ from it: the tasks file changed since the run read it/.test(error.message));
    } finally {
      writeFileSync(tasksPath, original);
    }
    assert.equal((await resumeEvaluation({ runId: stopped.runId, dbPath })).tasks, taskCount);
  });

  test('is refused when the file is gone, saying where to put it back', async () => {
    const dbPath = join(directory, 'gone.db');
    const stopped = await start(dbPath);
    const moved = `${tasksPath}.moved`;
    renameSync(tasksPath, moved);
    try {
      await assert.rejects(resumeEvaluation({ runId: stopped.runId, dbPath, databaseFlag: ' --db gone.db' }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /reads the rest of its tasks from .*tasks\.jsonl: cannot read tasks file/);
        assert.match(error.fix ?? '', /put the tasks file the run started with back at .*tasks\.jsonl/);
        assert.ok((error.fix ?? '').endsWith(`delete this one with 'toolforge delete ${stopped.runId} --db gone.db'`), error.fix);
        return true;
      });
    } finally {
      renameSync(moved, tasksPath);
    }
    assert.equal((await resumeEvaluation({ runId: stopped.runId, dbPath })).tasks, taskCount);
  });

  test('reads a moved file from where it is now (tasksFile), checking it is the same file', async () => {
    const dbPath = join(directory, 'moved.db');
    const stopped = await start(dbPath);
    const movedPath = join(directory, 'elsewhere.jsonl');
    renameSync(tasksPath, movedPath);
    try {
      await assert.rejects(resumeEvaluation({ runId: stopped.runId, dbPath }), (error: unknown) =>
        error instanceof ConfigError && /or pass where it is now: 'toolforge run --resume .* --tasks <file>'/.test(error.fix ?? ''));
      const resumed = await resumeEvaluation({ runId: stopped.runId, dbPath, tasksFile: movedPath });
      assert.equal('tasksIncomplete' in resumed, false);
      assert.deepEqual(comparable(resumed), comparable(await uninterrupted(join(directory, 'moved-plain.db'), {}, movedPath)));
      // Every task is stored now: the file is not read again, and a resume that names one is told so.
      await assert.rejects(resumeEvaluation({ runId: stopped.runId, dbPath, tasksFile: movedPath }), (error: unknown) =>
        error instanceof ConfigError && /stored all 300 of its tasks from .*tasks\.jsonl: a resume reads them from the store/.test(error.message) && /drop --tasks/.test(error.fix ?? ''));
    } finally {
      renameSync(movedPath, tasksPath);
    }
  });

  test('refuses another file given as the moved one, naming the recorded path, and stays resumable', async () => {
    const dbPath = join(directory, 'other.db');
    const stopped = await start(dbPath);
    const otherPath = join(directory, 'other.jsonl');
    writeFileSync(otherPath, formatTasksJsonl(await generateTasks(funcgenSuite, { seed: 10, count: taskCount, params, validate: false })));
    await assert.rejects(resumeEvaluation({ runId: stopped.runId, dbPath, tasksFile: otherPath }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /other\.jsonl:1: task 'funcgen\/10\/0' is not the task run '.*' stored as its task 0 \('funcgen\/9\/0'\): it is not the tasks file the run read from .*tasks\.jsonl/);
      assert.match(error.fix ?? '', /it was at .*tasks\.jsonl; pass where it is now with --tasks <file>/);
      return true;
    });
    await assert.rejects(resumeEvaluation({ runId: stopped.runId, dbPath, tasksFile: join(directory, 'nowhere.jsonl') }), (error: unknown) =>
      error instanceof ConfigError && /reads the rest of its tasks from .*nowhere\.jsonl/.test(error.message) && /the run read it from .*tasks\.jsonl/.test(error.fix ?? ''));
    await assert.rejects(resumeEvaluation({ runId: stopped.runId, dbPath, tasksFile: '' }), /options\.tasksFile must be the path of the run's tasks file/);
    assert.equal((await resumeEvaluation({ runId: stopped.runId, dbPath })).tasks, taskCount);
  });

  test('a run whose tasks were not read from a file refuses a tasks file on resume', async () => {
    const dbPath = join(directory, 'recipe.db');
    const summary = await runEvaluation({
      suite: funcgenSuite, tasks: fileTasks(tasksPath, {}), modelRef: 'builtin/planner', seed: 0, params, dbPath,
    });
    await assert.rejects(resumeEvaluation({ runId: summary.runId, dbPath, tasksFile: tasksPath }), (error: unknown) =>
      error instanceof ConfigError && /did not read its tasks from a tasks file it recorded \(they were passed to it, or transformed/.test(error.message) && /drop --tasks/.test(error.fix ?? ''));
  });

  test('without the file recorded (a library caller\'s own stream) it cannot be resumed, and says to start again', async () => {
    const dbPath = join(directory, 'unrecorded.db');
    const controller = new AbortController();
    const stopped = await runEvaluation({
      suite: funcgenSuite, tasks: fileTasks(tasksPath, {}, { after: 150, controller }), modelRef: 'builtin/planner', seed: 0, params, dbPath, signal: controller.signal,
    });
    assert.equal(stopped.tasksIncomplete, 'start-again');
    await assert.rejects(resumeEvaluation({ runId: stopped.runId, dbPath }), /was stopped while its tasks were still being written/);
  });
});

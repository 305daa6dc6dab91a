import type { Task } from '../../src/core/task.ts';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError, ProviderError, SandboxError } from '../../src/core/errors.ts';
import type { LanguageModel } from '../../src/models/spec.ts';
import { createScriptedModel } from '../../src/models/builtin/scripted-model.ts';
import { resumeEvaluation, runEvaluation } from '../../src/runner/run-evaluation.ts';
import type { RunOptions } from '../../src/runner/run-evaluation.ts';
import type { RunProgressEvent } from '../../src/runner/run-progress.ts';
import { summarizeRun } from '../../src/runner/summarize-run.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { PostgresError } from '../../src/store/postgres/synchronous-postgres.ts';
import type { BuiltinModel } from '../../src/suites/spec.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { recordingRetry, temporaryDirectory } from './test-helpers.ts';

/** Throws `error` on the first `failures` generate calls of each episode, then answers like the oracle. */
function flakyModel(failures: number, error: () => Error, oracle: BuiltinModel): BuiltinModel & { calls: Map<string, number> } {
  const calls = new Map<string, number>();
  return {
    calls,
    description: 'fails, then answers',
    create(episode) {
      const inner = oracle.create(episode);
      const key = `${episode.task.id}/${episode.trial}`;
      return {
        ...inner,
        async generate(request) {
          const count = (calls.get(key) ?? 0) + 1;
          calls.set(key, count);
          if (count <= failures) throw error();
          return inner.generate(request);
        },
      } satisfies LanguageModel;
    },
  };
}

const sandboxCrash = (): SandboxError => new SandboxError('sandbox.crashed', 'the sandbox worker died');

async function baseOptions(overrides: Partial<RunOptions> & { suite?: RunOptions['suite'] } = {}): Promise<RunOptions & { tasks: readonly Task[] }> {
  const suite = overrides.suite ?? createFakeSuite();
  const tasks = await suite.generate({ seed: 11, count: 3, params: {} });
  return { suite, tasks, modelRef: 'builtin/oracle', seed: 11, params: {}, store: openResultsStore(':memory:'), ...overrides } as RunOptions & { tasks: readonly Task[] };
}

describe('runEvaluation', () => {
  test('the oracle scores every task of every trial, with provenance and progress events', async () => {
    const events: RunProgressEvent[] = [];
    const options = await baseOptions({ trials: 2, concurrency: 3, cliArgs: ['run', 'fake-sum', '--trials', '2'], onProgress: (event) => events.push(event) });
    const summary = await runEvaluation(options);
    assert.equal(summary.passRate, 1);
    assert.equal(summary.episodes, 6);
    assert.equal(summary.passed, 6);
    assert.equal(summary.tasks, 3);
    assert.equal(summary.trials, 2);
    assert.equal(summary.mode, 'calls');
    assert.equal(summary.status, 'finished');
    assert.equal(summary.infrastructureErrors, 0);
    assert.equal(summary.missingEpisodes, 0);
    assert.deepEqual(summary.passRateCI95.map((value) => Math.round(value * 1e4) / 1e4), [0.6097, 1]);
    assert.equal(summary.metrics.passAt1, 1);
    assert.equal(summary.metrics.passAt2, 1);
    assert.equal(summary.metrics.passHat2, 1);
    assert.equal(summary.metrics.meanToolCalls, 1);
    assert.equal(summary.tables[0].title, 'Episodes by outcome');
    assert.equal(Object.values(summary.failures).reduce((sum, count) => sum + count, 0), 0);

    const store = options.store!;
    const run = store.getRun(summary.runId);
    assert.match(run.id, /^fake-sum-\d{8}-\d{6}-[0-9a-f]{4}$/);
    assert.equal(run.provenance.toolforgeVersion, '0.1.0');
    assert.equal(run.provenance.nodeVersion, process.version);
    assert.deepEqual(run.provenance.cliArgs, ['run', 'fake-sum', '--trials', '2']);
    assert.deepEqual(run.provenance.suite, { id: 'fake-sum', version: '1' });
    assert.equal(run.provenance.seed, 11);
    assert.ok(run.provenance.git === null || /^[0-9a-f]{40}$/.test(run.provenance.git.commit));
    assert.deepEqual(store.listTasks(run.id), options.tasks);

    // The run is named once it is recorded, before its tasks are stored; then it starts.
    assert.deepEqual(events.slice(0, 2), [{ type: 'run-recorded', runId: run.id }, { type: 'run-start', runId: run.id, plannedEpisodes: 6, alreadyScoredEpisodes: 0, totalEpisodes: 6 }]);
    const ends = events.filter((event) => event.type === 'episode-end');
    assert.deepEqual(ends.map((event) => event.completedEpisodes), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(events.at(-1), { type: 'run-end', runId: run.id, status: 'finished' });
    // Every environment was created fresh and disposed.
    const suite = options.suite as ReturnType<typeof createFakeSuite>;
    assert.equal(suite.counters.environmentsCreated, 6);
    assert.equal(suite.counters.environmentsDisposed, 6);
  });

  test('a wrong model is scored as failing, with failures counted by code', async () => {
    const summary = await runEvaluation(await baseOptions({ modelRef: 'builtin/wrong', trials: 2 }));
    assert.equal(summary.passRate, 0);
    assert.equal(summary.failures['result.wrong'], 6);
    assert.equal(summary.metrics.passAt2, 0);
    assert.deepEqual(summary.passRateCI95.map((value) => Math.round(value * 1e4) / 1e4), [0, 0.3903]);
  });

  test('the react mode runs through the generic react agent', async () => {
    const summary = await runEvaluation(await baseOptions({ mode: 'react' }));
    assert.equal(summary.mode, 'react');
    assert.equal(summary.passRate, 1);
  });

  test('at most `concurrency` episodes are in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const suite = createFakeSuite();
    const gated: BuiltinModel = {
      description: 'tracks concurrency',
      create(episode) {
        const inner = suite.builtinModels.oracle.create(episode);
        return {
          ...inner,
          async generate(request) {
            inFlight += 1;
            peak = Math.max(peak, inFlight);
            await new Promise((resolve) => setImmediate(resolve));
            inFlight -= 1;
            return inner.generate(request);
          },
        };
      },
    };
    const withGated = createFakeSuite({ extraModels: { gated } });
    const tasks = await withGated.generate({ seed: 3, count: 5, params: {} });
    const summary = await runEvaluation({ suite: withGated, tasks, modelRef: 'builtin/gated', trials: 2, concurrency: 2, seed: 3, params: {}, store: openResultsStore(':memory:') });
    assert.equal(summary.passRate, 1);
    assert.equal(peak, 2);
  });

  test('a broken sandbox restarts the episode with backoff: scored once, attempts 3, restarts counted by cause', async () => {
    const oracle = createFakeSuite().builtinModels.oracle;
    const flaky = flakyModel(2, sandboxCrash, oracle);
    const suite = createFakeSuite({ extraModels: { flaky } });
    const retry = recordingRetry();
    const events: RunProgressEvent[] = [];
    const options = await baseOptions({ suite, modelRef: 'builtin/flaky', retry: { ...retry.policy, baseDelayMs: 1000 }, concurrency: 1, onProgress: (event) => events.push(event) });
    const summary = await runEvaluation(options);
    assert.equal(summary.passRate, 1);
    assert.equal(summary.episodes, 3);
    const episodes = options.store!.listEpisodes(summary.runId);
    assert.deepEqual(episodes.map((episode) => [episode.status, episode.attempts, episode.retries]), Array.from({ length: 3 }, () => ['scored', 3, { 'sandbox.crashed': 2 }]));
    // Equal jitter with random() = 0.5: 3/4 of 1000 * 2^(attempt-1).
    assert.deepEqual(retry.sleeps, [750, 1500, 750, 1500, 750, 1500]);
    assert.equal(events.filter((event) => event.type === 'episode-retry').length, 6);
    assert.deepEqual(summary.retries, { 'sandbox.crashed': 6 });
  });

  test('a provider error is never answered by replaying the episode: it is retried per request or recorded after one attempt', async () => {
    // A built-in model has no request retries: its retryable provider error reaches the runner, which must not replay turns.
    const oracle = createFakeSuite().builtinModels.oracle;
    const limited = flakyModel(1, () => new ProviderError('provider.rate-limited', 'HTTP 429', { statusCode: 429, isRetryable: true, retryAfterSeconds: 7 }), oracle);
    const suite = createFakeSuite({ extraModels: { limited } });
    const retry = recordingRetry();
    const options = await baseOptions({ suite, modelRef: 'builtin/limited', retry: retry.policy });
    const summary = await runEvaluation(options);
    assert.equal(summary.episodes, 0);
    assert.equal(summary.infrastructureErrors, 3);
    assert.deepEqual(retry.sleeps, []);
    assert.deepEqual(limited.calls.get(`${options.tasks[0].id}/0`), 1);
    assert.deepEqual(summary.retries, {});
  });

  test('restarts run out: the episode is an infrastructure error, not scored and not in the pass rate', async () => {
    const oracle = createFakeSuite().builtinModels.oracle;
    const down = flakyModel(100, sandboxCrash, oracle);
    const suite = createFakeSuite({ extraModels: { down } });
    const retry = recordingRetry(3);
    const options = await baseOptions({ suite, modelRef: 'builtin/down', retry: retry.policy });
    const summary = await runEvaluation(options);
    assert.equal(summary.episodes, 0);
    assert.equal(summary.infrastructureErrors, 3);
    assert.equal(summary.passRate, 0);
    assert.deepEqual(summary.passRateCI95, [0, 1]);
    assert.equal(summary.failures.infrastructure, 0);
    const [first] = options.store!.listEpisodes(summary.runId);
    assert.equal(first.status, 'infrastructure-error');
    assert.equal(first.attempts, 3);
    assert.equal(first.score, null);
    assert.deepEqual(first.error, { code: 'sandbox.crashed', message: 'the sandbox worker died' });
    assert.deepEqual(first.retries, { 'sandbox.crashed': 2 });
    assert.equal(retry.sleeps.length, 6);
  });

  test('a non-retryable error is recorded at once as an infrastructure error', async () => {
    const retry = recordingRetry();
    const options = await baseOptions({ modelRef: 'builtin/server-error', retry: retry.policy });
    const summary = await runEvaluation(options);
    assert.equal(summary.infrastructureErrors, 3);
    assert.equal(summary.episodes, 0);
    assert.deepEqual(retry.sleeps, []);
    const episodes = options.store!.listEpisodes(summary.runId);
    assert.deepEqual(episodes.map((episode) => [episode.status, episode.attempts, episode.error?.code]),
      Array.from({ length: 3 }, () => ['infrastructure-error', 1, 'provider.request-rejected']));
  });

  test('resume runs only the missing and infrastructure-error episodes, never a scored one again', async () => {
    const directory = temporaryDirectory();
    const dbPath = join(directory, 'results.db');
    const oracle = createFakeSuite().builtinModels.oracle;
    // Fails every call of trial 1 of every task during the first run; the same model then recovers.
    let isOutage = true;
    const calls: string[] = [];
    const patchy: BuiltinModel = {
      description: 'down for trial 1 during an outage',
      create(episode) {
        const inner = oracle.create(episode);
        return {
          ...inner,
          async generate(request) {
            calls.push(`${episode.task.id}/${episode.trial}`);
            if (isOutage && episode.trial === 1) throw new ProviderError('provider.request-rejected', 'HTTP 400', { isRetryable: false });
            return inner.generate(request);
          },
        };
      },
    };
    const suite = createFakeSuite({ extraModels: { patchy } });
    const tasks = await suite.generate({ seed: 5, count: 3, params: {} });
    const first = await runEvaluation({ suite, tasks, modelRef: 'builtin/patchy', trials: 2, seed: 5, params: {}, dbPath });
    assert.equal(first.episodes, 3);
    assert.equal(first.infrastructureErrors, 3);

    // Also drop one scored episode to stand for one lost in a crash.
    const store = openResultsStore(dbPath);
    const kept = store.listEpisodes(first.runId, { status: 'scored' }).filter((episode) => episode.taskId !== tasks[2].id);
    assert.equal(kept.length, 2);
    store.close();
    const Database = (await import('better-sqlite3')).default;
    const database = new Database(dbPath);
    database.prepare('DELETE FROM episodes WHERE task_id = ? AND trial = 0').run(tasks[2].id);
    database.close();

    isOutage = false;
    calls.length = 0;
    const events: RunProgressEvent[] = [];
    const resumed = await resumeEvaluation({ runId: first.runId, dbPath, suite, onProgress: (event) => events.push(event) });
    assert.equal(resumed.episodes, 6);
    assert.equal(resumed.infrastructureErrors, 0);
    assert.equal(resumed.passRate, 1);
    assert.equal(resumed.status, 'finished');
    assert.deepEqual(events[0], { type: 'run-start', runId: first.runId, plannedEpisodes: 4, alreadyScoredEpisodes: 2, totalEpisodes: 6 });
    // Two generate calls per oracle episode: 4 episodes rerun.
    assert.deepEqual([...new Set(calls)].sort(), [`${tasks[0].id}/1`, `${tasks[1].id}/1`, `${tasks[2].id}/0`, `${tasks[2].id}/1`].sort());
    const after = openResultsStore(dbPath);
    const rows = after.listEpisodes(first.runId);
    assert.equal(rows.length, 6);
    assert.deepEqual(rows.filter((episode) => kept.some((old) => old.taskId === episode.taskId && old.trial === episode.trial)), kept);

    // A second resume has nothing to do.
    calls.length = 0;
    const again = await resumeEvaluation({ runId: first.runId, store: after, suite });
    assert.equal(again.episodes, 6);
    assert.deepEqual(calls, []);
    after.close();
  });

  test('cancellation records nothing half-done and marks the run cancelled; resume finishes it', async () => {
    const controller = new AbortController();
    const suite = createFakeSuite({ slowDelayMs: 10_000 });
    const options = await baseOptions({ suite, modelRef: 'builtin/slow', concurrency: 2, signal: controller.signal });
    const store = options.store!;
    const running = runEvaluation({ ...options, onProgress: (event) => { if (event.type === 'run-start') setImmediate(() => controller.abort()); } });
    const summary = await running;
    assert.equal(summary.status, 'cancelled');
    assert.equal(summary.episodes, 0);
    assert.equal(summary.missingEpisodes, 3);
    assert.deepEqual(store.listEpisodes(summary.runId), []);
    assert.equal(suite.counters.environmentsDisposed, suite.counters.environmentsCreated);
    const fast = createFakeSuite({ slowDelayMs: 0 });
    const resumed = await resumeEvaluation({ runId: summary.runId, store, suite: fast });
    assert.equal(resumed.status, 'finished');
    assert.equal(resumed.passRate, 1);
  });

  test('cancelled while its tasks stream in from a source that does not watch the signal: storing stops within a batch, the run is kept cancelled', async () => {
    const controller = new AbortController();
    const suite = createFakeSuite();
    const made = await suite.generate({ seed: 11, count: 2000, params: {} });
    let read = 0;
    // A plain generator (a tasks file read with no check, or a library caller's): it knows nothing of the signal.
    function* tasks(): Generator<Task> {
      for (const task of made) {
        read += 1;
        if (read === 100) controller.abort();
        yield task;
      }
    }
    const store = openResultsStore(':memory:');
    const summary = await runEvaluation({ suite, tasks: tasks(), modelRef: 'builtin/oracle', seed: 11, params: {}, store, signal: controller.signal });
    assert.equal(summary.status, 'cancelled');
    assert.equal(summary.episodes, 0);
    // The batch under way when the signal came is committed (nothing half-done), and no further one is read.
    assert.equal(store.getRun(summary.runId).taskCount, 128);
    assert.equal(read, 128);
    assert.equal(store.hasAllTasks(summary.runId), false);
  });

  test('a store that fails a write while the tasks stream in (a full disk, a PostgreSQL server gone) keeps the run, named as soon as it was recorded, and --resume finishes it', async () => {
    const suite = createFakeSuite();
    const recipe = { seed: 11, count: 300, params: {} };
    const made = await suite.generate(recipe);
    const failures: [string, () => Error][] = [
      ['SQLite: the disk is full', () => new Database.SqliteError('database or disk is full', 'SQLITE_FULL')],
      ['PostgreSQL: the server is gone', () => new ConfigError('store.unreachable', 'cannot connect to PostgreSQL at postgres://127.0.0.1:1/x: Connection terminated unexpectedly')],
      ['PostgreSQL: shutting down', () => new PostgresError('PostgreSQL: terminating connection due to administrator command', { sqlState: '57P01', fix: 'see the message' })],
    ];
    for (const [name, failure] of failures) {
      const real = openResultsStore(join(temporaryDirectory(), 'results.db'));
      // The third batch of tasks meets the failure, as the store reports it.
      let appends = 0;
      const failing = new Proxy(real, {
        get(target, key) {
          if (key === 'appendTasks') {
            return (...args: Parameters<typeof real.appendTasks>) => {
              appends += 1;
              if (appends === 3) throw failure();
              return target.appendTasks(...args);
            };
          }
          const value = Reflect.get(target, key) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      const events: RunProgressEvent[] = [];
      await assert.rejects(
        runEvaluation({ suite, tasks: made, modelRef: 'builtin/oracle', seed: 11, params: {}, taskRecipe: recipe, store: failing, onProgress: (event) => events.push(event) }),
        (error: unknown) => error instanceof Error && error.message === failure().message,
        name,
      );
      assert.equal(events[0].type, 'run-recorded', name);
      const runId = (events[0] as { runId: string }).runId;
      // Kept (a refused task's run is deleted; a failing store is the machine's), with the two batches it stored (a
      // built-in model runs the tasks as they are made, 16 a batch), and no episode of a task it did not store.
      assert.equal(real.getRun(runId).taskCount, 32, name);
      assert.equal(real.hasAllTasks(runId), false, name);
      const storedIds = new Set(real.listTaskIds(runId));
      assert.ok(real.listEpisodeKeys(runId).every((episode) => storedIds.has(episode.taskId)), name);
      const resumed = await resumeEvaluation({ runId, store: real, suite });
      assert.deepEqual([resumed.status, resumed.tasks, resumed.episodes, resumed.passRate], ['finished', 300, 300, 1], name);
      real.close();
    }
  });

  test('bad configuration fails before a run is recorded', async () => {
    const options = await baseOptions();
    const store = options.store!;
    const cases: [Partial<RunOptions>, string, RegExp][] = [
      [{ modelRef: 'builtin/nope' }, 'config.unknown-model', /builtin\/oracle, builtin\/wrong/],
      [{ modelRef: 'nonsense' }, 'config.unknown-model', /provider/],
      [{ trials: 0 }, 'config.invalid', /--trials/],
      [{ concurrency: 1.5 }, 'config.invalid', /--concurrency/],
      [{ tasks: [] }, 'config.invalid', /no tasks/],
      [{ mode: 'code' }, 'config.unsupported-mode', /--mode calls\|react/],
      [{ tasks: [{ ...options.tasks[0], suite: { id: 'nestful', version: '1' } }] }, 'input.invalid', /belongs to suite 'nestful'/],
      [{ tasks: [{ ...options.tasks[0], suite: { id: 'fake-sum', version: '0' } }] }, 'input.invalid', /regenerate/],
      [{ tasks: [options.tasks[0], options.tasks[0]] }, 'input.invalid', /appears twice/],
    ];
    for (const [override, code, pattern] of cases) {
      await assert.rejects(runEvaluation({ ...options, ...override }), (error: unknown) =>
        error instanceof ConfigError && error.code === code && pattern.test(error.message), `${code} ${pattern}`);
    }
    assert.deepEqual(store.listRuns(), []);
  });

  test('a configuration error in the middle of a run stops it and marks it failed', async () => {
    const oracle = createFakeSuite().builtinModels.oracle;
    let created = 0;
    const keyless: BuiltinModel = {
      description: 'loses its key after one episode',
      create(episode) {
        created += 1;
        if (created > 1) throw new ConfigError('config.missing-api-key', 'the key went away', { fix: 'export KEY=...' });
        return oracle.create(episode);
      },
    };
    const suite = createFakeSuite({ extraModels: { keyless } });
    const options = await baseOptions({ suite, modelRef: 'builtin/keyless', concurrency: 1 });
    await assert.rejects(runEvaluation(options), (error: unknown) => error instanceof ConfigError && error.code === 'config.missing-api-key');
    const [run] = options.store!.listRuns();
    assert.equal(run.status, 'failed');
    assert.deepEqual(options.store!.countEpisodes(run.id), { scored: 1, 'infrastructure-error': 0, cancelled: 0 });
  });

  test('resume refuses a run made with another suite version, and an unknown run', async () => {
    const options = await baseOptions();
    const summary = await runEvaluation(options);
    await assert.rejects(resumeEvaluation({ runId: summary.runId, store: options.store, suite: createFakeSuite({ version: '2' }) }),
      (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid' && /version 1/.test(error.message));
    await assert.rejects(resumeEvaluation({ runId: 'nope', store: options.store, suite: options.suite }),
      (error: unknown) => error instanceof ConfigError && error.code === 'store.unknown-run');
  });

  test('summarizeRun computes pass@k and pass^k per task from the stored episodes', async () => {
    // Task 0 passes trials 0 and 2, task 1 only trial 1, task 2 all three: per-task (n=3) c = 2, 1, 3.
    const suite = createFakeSuite();
    const tasks = await suite.generate({ seed: 9, count: 3, params: {} });
    const passes: Record<string, number[]> = { [tasks[0].id]: [0, 2], [tasks[1].id]: [1], [tasks[2].id]: [0, 1, 2] };
    const mixed: BuiltinModel = {
      description: 'passes chosen trials',
      create: (episode) => passes[episode.task.id].includes(episode.trial)
        ? suite.builtinModels.oracle.create(episode)
        : createScriptedModel({ modelId: 'mixed', mode: episode.mode, policy: () => ({ type: 'answer', text: '-1' }) }),
    };
    const withMixed = createFakeSuite({ extraModels: { mixed } });
    const store = openResultsStore(':memory:');
    const summary = await runEvaluation({ suite: withMixed, tasks, modelRef: 'builtin/mixed', trials: 3, seed: 9, params: {}, store });
    const close = (actual: number, expected: number): void => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} != ${expected}`);
    close(summary.passRate, 6 / 9);
    close(summary.metrics.passAt1, (2 / 3 + 1 / 3 + 1) / 3);
    // pass@2: 1 - C(n-c,2)/C(3,2): c=2 -> 1, c=1 -> 1 - 1/3, c=3 -> 1.
    close(summary.metrics.passAt2, (1 + 2 / 3 + 1) / 3);
    close(summary.metrics.passAt3, 1);
    // pass^2: C(c,2)/C(3,2): c=2 -> 1/3, c=1 -> 0, c=3 -> 1.
    close(summary.metrics.passHat2, (1 / 3 + 0 + 1) / 3);
    close(summary.metrics.passHat3, 1 / 3);
    close(summary.metrics.meanScore, 6 / 9);
    assert.equal(summary.failures['result.wrong'], 3);
    assert.deepEqual(summarizeRun(store, summary.runId, withMixed), summary);
  });
});

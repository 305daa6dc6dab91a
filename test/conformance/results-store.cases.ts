/**
 * The ResultsStore contract, run against every store implementation (a SQLite file, a PostgreSQL server):
 * the same calls must give the same answers, byte for byte where the contract says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EpisodeRecord } from '../../src/core/episode.ts';
import type { Task } from '../../src/core/task.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { exportRunLines } from '../../src/store/run-jsonl.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { sampleEpisode, sampleRun } from '../runner/test-helpers.ts';
import { taskRow } from '../../src/store/task-row.ts';

/** `open` gives a store over an empty database each time it is called. */
export function resultsStoreCases(open: () => ResultsStore): void {
  const tasksPromise = createFakeSuite().generate({ seed: 7, count: 3, params: {} });
  // Enough tasks that their episodes fill several pages of a paged read.
  const manyTasksPromise = createFakeSuite().generate({ seed: 8, count: 120, params: {} });
  const withStore = async (work: (store: ResultsStore, tasks: Task[]) => void | Promise<void>): Promise<void> => {
    const tasks = await tasksPromise;
    const store = open();
    try {
      await work(store, tasks);
    } finally {
      store.close();
    }
  };
  const failed = (runId: string, taskId: string, trial: number, failure: string): EpisodeRecord =>
    sampleEpisode(runId, taskId, trial, { score: { value: 0, passed: false, reason: 'no', failure: failure as 'result.wrong' } });
  const infrastructure = (runId: string, taskId: string, trial: number, retries?: Record<string, number>): EpisodeRecord =>
    sampleEpisode(runId, taskId, trial, {
      status: 'infrastructure-error', termination: null, messages: [], score: null, attempts: 3,
      error: { code: 'provider.server-error', message: 'HTTP 503' }, ...(retries ? { retries } : {}),
    });

  test('round-trips a run, its tasks and episodes (transcripts short and compressed) in task order', () => withStore((store, tasks) => {
    store.createRun(sampleRun('run-a'), tasks);
    const long = sampleEpisode('run-a', tasks[2].id, 0, { messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
    store.saveEpisodes([sampleEpisode('run-a', tasks[1].id, 0), long, sampleEpisode('run-a', tasks[0].id, 1)]);
    const run = store.getRun('run-a');
    assert.equal(run.taskCount, 3);
    assert.equal(run.status, 'running');
    assert.deepEqual(run.provenance, sampleRun('run-a').provenance);
    assert.deepEqual(store.listTasks('run-a'), tasks);
    assert.deepEqual(store.listTaskIds('run-a'), tasks.map((task) => task.id));
    assert.deepEqual(store.findTask('run-a', tasks[1].id), tasks[1]);
    assert.deepEqual(store.listEpisodes('run-a').map((episode) => [episode.taskId, episode.trial]),
      [[tasks[0].id, 1], [tasks[1].id, 0], [tasks[2].id, 0]]);
    assert.deepEqual(store.findEpisode('run-a', tasks[2].id, 0), long);
    assert.deepEqual(store.findEpisode('run-a', tasks[1].id, 0), sampleEpisode('run-a', tasks[1].id, 0));
    assert.equal(store.findEpisode('run-a', tasks[1].id, 1), undefined);
    assert.deepEqual(store.listTaskEpisodes('run-a', tasks[0].id), [sampleEpisode('run-a', tasks[0].id, 1)]);
  }));

  test('an infrastructure error is replaced by its retry, a scored row never; retries add up per cause', () => withStore((store, tasks) => {
    store.createRun(sampleRun('run-b'), tasks);
    assert.equal(store.saveEpisode(infrastructure('run-b', tasks[0].id, 0, { 'provider.rate-limited': 2 })), true);
    assert.deepEqual(store.countEpisodes('run-b'), { scored: 0, 'infrastructure-error': 1, cancelled: 0 });
    assert.equal(store.saveEpisode(sampleEpisode('run-b', tasks[0].id, 0, { attempts: 2, retries: { 'provider.rate-limited': 1, 'provider.timeout': 4 } })), true);
    assert.equal(store.saveEpisode(failed('run-b', tasks[0].id, 0, 'result.wrong')), false);
    const [only] = store.listEpisodes('run-b');
    assert.equal(only.score?.passed, true);
    assert.deepEqual(only.retries, { 'provider.rate-limited': 3, 'provider.timeout': 4 });
    assert.deepEqual(store.countRetries('run-b'), { 'provider.rate-limited': 3, 'provider.timeout': 4 });
  }));

  test('lists runs newest first, filters by suite, finds the latest, names recent runs for an unknown id, deletes', () => withStore((store, tasks) => {
    store.createRun(sampleRun('old', { createdAt: '2026-01-01T00:00:00.000Z' }), tasks);
    store.createRun(sampleRun('new', { createdAt: '2026-01-03T00:00:00.000Z' }), tasks);
    store.createRun(sampleRun('other', { createdAt: '2026-01-02T00:00:00.000Z', suite: { id: 'other-suite', version: '1' } }), []);
    assert.deepEqual(store.listRuns().map((run) => run.id), ['new', 'other', 'old']);
    assert.deepEqual(store.listRuns({ suiteId: 'fake-sum' }).map((run) => run.id), ['new', 'old']);
    assert.deepEqual(store.listRuns({ limit: 1 }).map((run) => run.id), ['new']);
    assert.equal(store.latestRun({ suiteId: 'other-suite' })?.id, 'other');
    store.setRunStatus('old', 'finished');
    assert.equal(store.getRun('old').status, 'finished');
    store.recordResume('old', { at: '2026-01-05T00:00:00.000Z', baseUrl: 'http://127.0.0.1:9/v1', cliArgs: ['run', '--resume'] });
    assert.equal(store.getRun('old').baseUrl, 'http://127.0.0.1:9/v1');
    assert.equal(store.getRun('old').provenance.resumes?.length, 1);
    assert.throws(() => store.getRun('missing'), (error: Error & { code?: string }) => error.code === 'store.unknown-run' && /new, other, old/.test(error.message));
    store.saveEpisode(sampleEpisode('new', tasks[0].id, 0));
    store.deleteRun('new');
    assert.equal(store.findRun('new'), undefined);
    assert.throws(() => store.deleteRun('new'), (error: Error & { code?: string }) => error.code === 'store.unknown-run');
  }));

  test('counts, filters and pages episodes by SQL (status, outcome, failure, task glob, search, knobs)', () => withStore((store, tasks) => {
    store.createRun(sampleRun('run-c'), tasks);
    store.saveEpisodes([
      sampleEpisode('run-c', tasks[0].id, 0), failed('run-c', tasks[0].id, 1, 'tool.unknown'),
      failed('run-c', tasks[1].id, 0, 'result.wrong'), sampleEpisode('run-c', tasks[1].id, 1, { score: { value: 0, passed: false, reason: 'no code' } }),
      infrastructure('run-c', tasks[2].id, 0),
    ]);
    assert.deepEqual(store.countOutcomes('run-c'), { scored: 4, passed: 1, infrastructureErrors: 1, cancelled: 0, failures: { 'tool.unknown': 1, 'result.wrong': 2 } });
    assert.equal(store.countPassedEpisodes('run-c'), 1);
    assert.deepEqual(store.listPassedTaskTrials('run-c'), [tasks[0].id]);
    assert.equal(store.listEpisodeOutcomes('run-c').length, 5);
    assert.equal(store.listEpisodeOutcomes('run-c', { status: 'infrastructure-error' })[0].taskId, tasks[2].id);
    const keys = (page: { episodes: { taskId: string; trial: number }[] }) => page.episodes.map((episode) => `${episode.taskId}#${episode.trial}`);
    assert.deepEqual(keys(store.queryEpisodes('run-c', { outcome: 'failed' })), [`${tasks[0].id}#1`, `${tasks[1].id}#0`, `${tasks[1].id}#1`]);
    assert.deepEqual(keys(store.queryEpisodes('run-c', { failure: 'result.wrong' })), [`${tasks[1].id}#0`, `${tasks[1].id}#1`]);
    assert.deepEqual(keys(store.queryEpisodes('run-c', { status: 'infrastructure-error' })), [`${tasks[2].id}#0`]);
    const page = store.queryEpisodes('run-c', { limit: 2, offset: 2 });
    assert.equal(page.total, 5);
    assert.deepEqual(keys(page), [`${tasks[1].id}#0`, `${tasks[1].id}#1`]);
    // Ids end in their index: a glob over the last character matches all three tasks' five episodes.
    assert.equal(store.queryEpisodes('run-c', { task: tasks[1].id }).total, 2);
    assert.equal(store.queryEpisodes('run-c', { task: `${tasks[1].id.slice(0, -1)}*` }).total, 5);
    assert.equal(store.queryEpisodes('run-c', { task: tasks[1].id.replace(/.$/, '[12]') }).total, 3);
    assert.equal(store.queryEpisodes('run-c', { task: tasks[1].id.replace(/.$/, '?') }).total, 5);
    assert.equal(store.queryEpisodes('run-c', { task: 'nothing*' }).total, 0);
    assert.equal(store.queryEpisodes('run-c', { search: tasks[2].id.toUpperCase() }).total, 1);
    const knobValue = String(tasks[0].params[Object.keys(tasks[0].params)[0]] ?? '');
    if (Object.keys(tasks[0].params).length > 0) {
      const [name] = Object.keys(tasks[0].params);
      assert.equal(store.queryEpisodes('run-c', { knobs: { [name]: knobValue } }).total, 5);
      assert.equal(store.queryEpisodes('run-c', { knobs: { [name]: `${knobValue}-no` } }).total, 0);
    }
    assert.deepEqual(store.listMatchingTaskIds('run-c', { outcome: 'failed' }), [tasks[0].id, tasks[1].id]);
  }));

  test('reads the outcomes of chosen tasks in task order, and scored durations by rank in ascending order', () => withStore((store, tasks) => {
    store.createRun(sampleRun('run-r'), tasks);
    store.saveEpisodes([
      sampleEpisode('run-r', tasks[0].id, 1, { durationMs: 30 }), sampleEpisode('run-r', tasks[0].id, 0, { durationMs: 10 }),
      failed('run-r', tasks[1].id, 0, 'result.wrong'), sampleEpisode('run-r', tasks[2].id, 0, { durationMs: 10 }),
      { ...infrastructure('run-r', tasks[2].id, 1), durationMs: 5 },
    ]);
    const keys = (episodes: { taskId: string; trial: number }[]) => episodes.map((episode) => `${episode.taskId}#${episode.trial}`);
    assert.deepEqual(keys(store.listEpisodeOutcomesOfTasks('run-r', [tasks[2].id, tasks[0].id])), [`${tasks[0].id}#0`, `${tasks[0].id}#1`, `${tasks[2].id}#0`, `${tasks[2].id}#1`]);
    assert.deepEqual(store.listEpisodeOutcomesOfTasks('run-r', []), []);
    assert.deepEqual(store.listEpisodeOutcomesOfTasks('run-r', [tasks[1].id]), store.listEpisodeOutcomes('run-r').filter((episode) => episode.taskId === tasks[1].id));
    const durations = store.sortedScoredDurations('run-r');
    const failedDuration = store.findEpisode('run-r', tasks[1].id, 0)?.durationMs as number;
    // The infrastructure error's 5 ms is not a scored duration.
    assert.equal(durations.count, 4);
    assert.deepEqual(durations.valuesAt([0, 1, 2, 3]), [10, 10, 30, failedDuration].sort((left, right) => left - right));
    assert.deepEqual(durations.valuesAt([3, 0]), [Math.max(30, failedDuration), 10]);
    assert.deepEqual(durations.valuesAt([]), []);
    assert.throws(() => durations.valuesAt([4]), RangeError);
    assert.equal(store.sortedScoredDurations('missing-run').count, 0);
  }));

  test('export then import into another database gives the same run, byte for byte', () => withStore((store, tasks) => {
    store.createRun(sampleRun('run-d'), tasks);
    store.saveEpisodes([sampleEpisode('run-d', tasks[0].id, 0, { retries: { 'provider.timeout': 1 } }), failed('run-d', tasks[1].id, 0, 'tool.unknown')]);
    store.setRunStatus('run-d', 'finished');
    const exported = store.exportRun('run-d');
    store.deleteRun('run-d');
    store.importRun(exported, 'copy.jsonl');
    assert.equal(store.exportRun('run-d'), exported);
    // The fix is in the store's own terms: another file for SQLite, another database for PostgreSQL.
    const otherStore = store.dialect === 'postgres' ? /--db postgres:\/\/<host>\/<other database>/ : /--db <other path>/;
    assert.throws(() => store.importRun(exported, 'copy.jsonl'), (error: Error & { code?: string; fix?: string }) =>
      error.code === 'input.invalid' && /already in/.test(error.message) && otherStore.test(error.fix ?? '') && /toolforge delete run-d/.test(error.fix ?? ''));
  }));

  /**
   * A run of 360 episodes (3 trials of 120 tasks, saved out of order): pages of the paged read end inside a task's
   * trials; transcripts short, compressed and stored without their task's prompt; infrastructure errors between.
   */
  const pagedRun = async (store: ResultsStore, runId: string): Promise<Task[]> => {
    const tasks = await manyTasksPromise;
    store.createRun(sampleRun(runId, { trials: 3 }), tasks);
    const answer = { role: 'assistant' as const, content: 'done', toolCalls: [] };
    const episodes = tasks.flatMap((task, index) => [2, 0, 1].map((trial) => {
      if ((index + trial) % 7 === 0) return { episode: infrastructure(runId, task.id, trial, { 'provider.timeout': trial + 1 }) };
      if ((index + trial) % 5 === 0) return { episode: sampleEpisode(runId, task.id, trial, { messages: [...task.prompt, answer] }), prompt: task.prompt };
      if ((index + trial) % 3 === 0) return { episode: sampleEpisode(runId, task.id, trial, { messages: [{ role: 'user', content: `${task.id} `.repeat(400) }, answer] }) };
      return { episode: failed(runId, task.id, trial, 'result.wrong') };
    }));
    store.saveEpisodes(episodes.reverse().map(({ episode, prompt }) => store.encodeEpisode(episode, prompt)));
    store.setRunStatus(runId, 'finished');
    return tasks;
  };

  test('reads a run\'s episodes with transcripts a page at a time, in listEpisodes\' order and equal to its episodes', () => withStore(async (store) => {
    const tasks = await pagedRun(store, 'run-e');
    const listed = store.listEpisodes('run-e');
    assert.equal(listed.length, 360);
    const paged = store.iterateEpisodes('run-e');
    assert.deepEqual([...paged], listed);
    // Each iteration reads the store again.
    assert.deepEqual([...paged].map((episode) => `${episode.taskId}#${episode.trial}`), listed.map((episode) => `${episode.taskId}#${episode.trial}`));
    assert.deepEqual(listed.slice(0, 4).map((episode) => [episode.taskId, episode.trial]), [[tasks[0].id, 0], [tasks[0].id, 1], [tasks[0].id, 2], [tasks[1].id, 0]]);
    assert.deepEqual([...store.iterateEpisodes('run-e', { status: 'infrastructure-error' })], store.listEpisodes('run-e', { status: 'infrastructure-error' }));
    assert.ok(listed.some((episode) => episode.messages.length === tasks[0].prompt.length + 1 && episode.status === 'scored'), 'some transcripts start with their prompt');
    assert.deepEqual([...store.iterateEpisodes('missing-run')], []);
    // Episodes of a task the run does not list (a damaged file) are read too, where listEpisodes puts them.
    store.saveEpisodes([sampleEpisode('run-e', 'unlisted/b', 0), sampleEpisode('run-e', 'unlisted/a', 0), sampleEpisode('run-e', 'unlisted/a', 1)]);
    const withUnlisted = store.listEpisodes('run-e');
    assert.equal(withUnlisted.length, 363);
    assert.deepEqual([...store.iterateEpisodes('run-e')], withUnlisted);
  }));

  test('reads each task\'s id, knob values and statistics in order, a page at a time, as the tasks hold them', () => withStore((store, tasks) => {
    store.beginRun(sampleRun('run-f'));
    // More than a page (256), with floats, nesting, strings and an empty object among the values.
    const many = Array.from({ length: 300 }, (_, index) => ({
      ...tasks[index % 3], id: `fake-sum/params-${index}`,
      params: { ...tasks[index % 3].params, level: index % 7, ratio: index / 8, name: `n"${index}` },
      stats: index === 5 ? {} : { ...tasks[index % 3].stats, depth: index % 5, nested: { pattern: 'A->B', values: [1.5, 2] } },
    }));
    store.appendTasks('run-f', many.map(taskRow), 0);
    const read = [...store.iterateTaskParamsAndStats('run-f')];
    assert.deepEqual(read, many.map(({ id, params, stats }) => ({ id, params, stats })));
    assert.deepEqual([...store.iterateTaskParamsAndStats('missing-run')], []);
  }));

  test('reads the scores of the scored episodes in task then trial order, past a page, as the outcomes hold them', () => withStore(async (store) => {
    const tasks = await manyTasksPromise;
    // 120 tasks x 12 trials, 1/7 of them infrastructure errors: past one page (1,000 rows) of the paged read.
    store.createRun(sampleRun('run-s', { trials: 12 }), tasks);
    store.saveEpisodes(tasks.flatMap((task, index) => Array.from({ length: 12 }, (_, trial) => ((index + trial) % 7 === 0
      ? infrastructure('run-s', task.id, trial)
      : (index * trial) % 4 === 1 ? failed('run-s', task.id, trial, 'tool.unknown') : sampleEpisode('run-s', task.id, trial)))).reverse());
    const expected = [...store.iterateEpisodeOutcomes('run-s', { status: 'scored' })]
      .map(({ ordinal, outcome }) => ({ ordinal, trial: outcome.trial, score: outcome.score }));
    assert.ok(expected.length > 1000, `${expected.length} scored episodes`);
    const scores = store.iterateScores('run-s');
    assert.deepEqual([...scores], expected);
    assert.deepEqual([...scores].length, expected.length, 'each iteration reads the store again');
    assert.deepEqual([...scores].slice(0, 3).map(({ ordinal, trial }) => [ordinal, trial]), [[0, 1], [0, 2], [0, 3]]);
    assert.ok([...scores].some(({ score }) => score.failure === 'tool.unknown'));
    // An episode of a task the run does not list is not read, as the outcomes leave it out.
    store.saveEpisodes([sampleEpisode('run-s', 'unlisted/a', 0)]);
    assert.equal([...store.iterateScores('run-s')].length, expected.length);
    assert.deepEqual([...store.iterateScores('missing-run')], []);
  }));

  test('sums a run\'s tokens over the episodes of its stored tasks, every status', () => withStore(async (store) => {
    await pagedRun(store, 'run-u');
    let inputTokens = 0;
    let outputTokens = 0;
    for (const { outcome } of store.iterateEpisodeOutcomes('run-u')) {
      inputTokens += outcome.usage.inputTokens;
      outputTokens += outcome.usage.outputTokens;
    }
    assert.ok(inputTokens > 0 && outputTokens > 0);
    assert.deepEqual(store.usageTotals('run-u'), { inputTokens, outputTokens });
    // An episode of a task the run does not list (a damaged file) is not counted, as a read of the episodes skips it.
    store.saveEpisodes([sampleEpisode('run-u', 'unlisted/a', 0)]);
    assert.deepEqual(store.usageTotals('run-u'), { inputTokens, outputTokens });
    assert.deepEqual(store.usageTotals('missing-run'), { inputTokens: 0, outputTokens: 0 });
  }));

  test('a run of several pages exports as the whole-run join did, line by line, and imports back the same run', () => withStore(async (store) => {
    await pagedRun(store, 'run-x');
    const exported = store.exportRun('run-x');
    assert.equal(exported, `${exportRunLines(store.getRun('run-x'), store.listTasks('run-x'), store.listEpisodes('run-x')).join('\n')}\n`);
    const lines = [...store.iterateExportLines('run-x')];
    assert.equal(lines.length, 1 + 120 + 360 + 1);
    assert.equal(`${lines.join('\n')}\n`, exported);
    const episodes = store.listEpisodes('run-x');
    const run = store.getRun('run-x');
    store.deleteRun('run-x');
    assert.deepEqual(store.importRunLines(exported.split('\n'), 'run-x.jsonl'), run);
    assert.deepEqual(store.listEpisodes('run-x'), episodes);
    assert.equal(store.exportRun('run-x'), exported);
    assert.throws(() => store.iterateExportLines('missing-run'), (error: Error & { code?: string }) => error.code === 'store.unknown-run');
  }));

  test('an import with a bad line after hundreds of good ones imports nothing and names the line', () => withStore(async (store) => {
    await pagedRun(store, 'run-y');
    const lines = store.exportRun('run-y').trimEnd().split('\n');
    store.deleteRun('run-y');
    // The header of an export from before the end line, for a run in this state.
    const oldHeader = (status: string): string => {
      const header = JSON.parse(lines[0]) as { trailer?: boolean; run: { status: string } };
      delete header.trailer;
      header.run.status = status;
      return JSON.stringify(header);
    };
    const bad = JSON.parse(lines[400]) as { episode: { trial: number } };
    bad.episode.trial = -1;
    // Line 401 edited so its fields contradict each other (reports read each of them separately).
    const edited = (change: (episode: Record<string, unknown> & { score: Record<string, unknown> | null }) => void): string[] => {
      const line = JSON.parse(lines[400]) as { episode: Record<string, unknown> & { score: Record<string, unknown> | null } };
      change(line.episode);
      return [...lines.slice(0, 400), JSON.stringify(line), ...lines.slice(401)];
    };
    const cases: [string[], RegExp][] = [
      [[...lines.slice(0, 400), JSON.stringify(bad), ...lines.slice(401)], /bad\.jsonl:401: field 'episode\.trial'/],
      [edited((episode) => { episode.status = 'scored'; episode.score = null; }), /bad\.jsonl:401: episode .* has status 'scored' but field 'episode\.score' is null/],
      [edited((episode) => { episode.status = 'scored'; episode.score = { value: 1, passed: true, reason: 'r' }; episode.termination = null; }), /bad\.jsonl:401: .* field 'episode\.termination' is null/],
      [edited((episode) => { episode.status = 'infrastructure-error'; episode.score = { value: 0, passed: false, reason: 'r' }; episode.error = { code: 'x', message: 'y' }; }), /bad\.jsonl:401: .* has status 'infrastructure-error' but a score/],
      [edited((episode) => { episode.status = 'infrastructure-error'; episode.score = null; episode.error = null; }), /bad\.jsonl:401: .* field 'episode\.error' is null/],
      [edited((episode) => { episode.status = 'scored'; episode.termination = 'final-answer'; episode.error = null; episode.score = { value: 1, passed: true, reason: 'r', failure: 'result.wrong' }; }), /bad\.jsonl:401: .* passed but has field 'episode\.score\.failure' \('result\.wrong'\)/],
      [[...lines.slice(0, 450), lines[300], ...lines.slice(450)], /bad\.jsonl:451: episode .* appears twice/],
      [[...lines.slice(0, 450), '{"type":"episode"', ...lines.slice(450)], /bad\.jsonl:451: not valid JSON/],
      [lines.slice(0, 100), /bad\.jsonl:100: the header says 120 task\(s\) but the file holds 99/],
      // Cut between two episodes: only the end line tells.
      [lines.slice(0, 300), /bad\.jsonl:300: the file ends without its end line .* after 179 episode\(s\): it is truncated/],
      [[...lines.slice(0, -2), lines[lines.length - 1]], /the end line counts 120 task\(s\) and 360 episode\(s\), but the file holds 120 and 359; lines are missing/],
      [[...lines, lines[200]], /bad\.jsonl:483: a line after the end line/],
      [[oldHeader('finished'), ...lines.slice(1, 300)], /bad\.jsonl:300: the header says the run finished its 360 episode\(s\), but the file holds 179; it is truncated/],
    ];
    for (const [text, pattern] of cases) {
      assert.throws(() => store.importRunLines(text, 'bad.jsonl'), (error: Error & { code?: string }) => error.code === 'input.invalid' && pattern.test(error.message), String(pattern));
      assert.deepEqual(store.listRuns(), []);
      assert.deepEqual(store.listEpisodes('run-y'), []);
      assert.deepEqual(store.listTasks('run-y'), []);
    }
    // An older export of a run that did not finish may hold fewer episodes than planned: it imports as it was.
    store.importRunLines([oldHeader('cancelled'), ...lines.slice(1, 300)], 'older.jsonl');
    assert.equal(store.listEpisodes('run-y').length, 179);
  }));

  test('a transcript that starts with its task\'s prompt is stored without it and read back whole, byte for byte', () => withStore((store, tasks) => {
    const [task] = tasks;
    const answer = { role: 'assistant' as const, content: 'done', toolCalls: [] };
    const withPrompt = sampleEpisode('run-p', task.id, 0, { messages: [...task.prompt, answer] });
    const otherPrompt = sampleEpisode('run-p', task.id, 1, { messages: [{ role: 'user', content: 'another question' }, answer] });
    // Stored whole (no prompt given): the export every encoding must reproduce.
    store.createRun(sampleRun('run-p'), tasks);
    store.saveEpisodes([withPrompt, otherPrompt]);
    const whole = store.exportRun('run-p');
    store.deleteRun('run-p');
    store.createRun(sampleRun('run-p'), tasks);
    const encoded = store.encodeEpisode(withPrompt, task.prompt);
    assert.equal(encoded.row.prompt_messages, task.prompt.length);
    assert.ok(!String(encoded.row.messages).includes(JSON.stringify(task.prompt[0].content)), 'the prompt is not stored again');
    assert.equal(store.encodeEpisode(otherPrompt, task.prompt).row.prompt_messages, 0);
    store.saveEpisodes([encoded]);
    store.saveEpisode(otherPrompt, task.prompt);
    assert.deepEqual(store.findEpisode('run-p', task.id, 0), withPrompt);
    assert.deepEqual(store.listTaskEpisodes('run-p', task.id), [withPrompt, otherPrompt]);
    assert.deepEqual(store.listEpisodes('run-p'), [withPrompt, otherPrompt]);
    assert.equal(store.exportRun('run-p'), whole);
  }));

  test('work queue: enqueue once, claim in task order, leases expire and are claimed again, saving ends a lease', () => withStore(async (store, tasks) => {
    store.createRun(sampleRun('run-q', { trials: 2 }), tasks);
    store.saveEpisode(sampleEpisode('run-q', tasks[0].id, 0));
    assert.deepEqual(store.enqueueEpisodes('run-q'), { pending: 5, leased: 0, done: 0 });
    assert.deepEqual(store.enqueueEpisodes('run-q'), { pending: 5, leased: 0, done: 0 });
    const first = store.claimEpisode('run-q', 'worker-1', 60_000);
    const second = store.claimEpisode('run-q', 'worker-2', 60_000);
    assert.deepEqual(first, { taskId: tasks[0].id, trial: 1, claims: 1 });
    assert.deepEqual(second, { taskId: tasks[1].id, trial: 0, claims: 1 });
    assert.deepEqual(store.queueCounts('run-q'), { pending: 3, leased: 2, done: 0 });
    store.saveEpisode(sampleEpisode('run-q', tasks[0].id, 1));
    assert.deepEqual(store.queueCounts('run-q'), { pending: 3, leased: 1, done: 1 });
    // A short lease that is not renewed expires: its episode is offered again, with its claims counted.
    const short = store.claimEpisode('run-q', 'worker-3', 1);
    assert.deepEqual(short, { taskId: tasks[1].id, trial: 1, claims: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(store.claimEpisode('run-q', 'worker-1', 60_000), { taskId: tasks[1].id, trial: 1, claims: 2 });
    store.renewLeases('run-q', 'worker-2', 60_000);
    assert.deepEqual(store.claimEpisode('run-q', 'worker-1', 60_000), { taskId: tasks[2].id, trial: 0, claims: 1 });
    assert.deepEqual(store.claimEpisode('run-q', 'worker-1', 60_000), { taskId: tasks[2].id, trial: 1, claims: 1 });
    assert.equal(store.claimEpisode('run-q', 'worker-1', 60_000), undefined);
    // An infrastructure error ends the lease too, and a later enqueue offers it again (as a resume would).
    store.saveEpisode(infrastructure('run-q', tasks[2].id, 1));
    for (const [taskId, trial] of [[tasks[1].id, 0], [tasks[1].id, 1], [tasks[2].id, 0]] as const) store.saveEpisode(sampleEpisode('run-q', taskId, trial));
    assert.deepEqual(store.queueCounts('run-q'), { pending: 0, leased: 0, done: 5 });
    assert.deepEqual(store.enqueueEpisodes('run-q'), { pending: 1, leased: 0, done: 4 });
    assert.deepEqual(store.claimEpisode('run-q', 'worker-2', 60_000), { taskId: tasks[2].id, trial: 1, claims: 2 });
  }));

  test('work queue: the live leases of workers known to be gone end at once; a live worker\'s and done episodes stay', () => withStore(async (store, tasks) => {
    store.createRun(sampleRun('run-g', { trials: 2 }), tasks);
    store.enqueueEpisodes('run-g');
    store.claimEpisode('run-g', 'dead', 60_000);
    store.claimEpisode('run-g', 'dead', 60_000);
    store.claimEpisode('run-g', 'alive', 60_000);
    const saved = store.claimEpisode('run-g', 'dead', 60_000)!;
    store.saveEpisode(sampleEpisode('run-g', saved.taskId, saved.trial));
    assert.deepEqual(store.queueCounts('run-g'), { pending: 2, leased: 3, done: 1 });
    const asked: string[] = [];
    assert.equal(store.releaseGoneWorkers('run-g', (worker) => { asked.push(worker); return worker === 'dead'; }), 2);
    assert.deepEqual(asked.sort(), ['alive', 'dead']);
    assert.deepEqual(store.queueCounts('run-g'), { pending: 4, leased: 1, done: 1 });
    // Freed in task order, claimed again with their claims counted.
    assert.deepEqual(store.claimEpisode('run-g', 'next', 60_000), { taskId: tasks[0].id, trial: 0, claims: 2 });
    assert.equal(store.releaseGoneWorkers('run-g', () => false), 0);
    assert.equal(store.releaseGoneWorkers('missing-run', () => true), 0);
  }));

  test('a run is held by one process at a time: a live hold is refused, a gone or lapsed holder is replaced, release frees it', () => withStore(async (store, tasks) => {
    store.createRun(sampleRun('run-h'), tasks);
    assert.equal(store.runHold('run-h'), undefined);
    assert.equal(store.holdRun('run-h', 'host-a pid 1', 60_000, () => false), undefined);
    const held = store.runHold('run-h');
    assert.equal(held?.holder, 'host-a pid 1');
    assert.ok(held !== undefined && held.heldUntil > 0);
    // Another process is refused while the holder lives, and told who holds it; the holder itself renews.
    assert.deepEqual(store.holdRun('run-h', 'host-b pid 2', 60_000, () => false)?.holder, 'host-a pid 1');
    assert.equal(store.holdRun('run-h', 'host-a pid 1', 60_000, () => false), undefined);
    // A holder known to be gone (killed on this machine) is replaced at once.
    assert.equal(store.holdRun('run-h', 'host-b pid 2', 60_000, (holder) => holder === 'host-a pid 1'), undefined);
    assert.equal(store.runHold('run-h')?.holder, 'host-b pid 2');
    // Releasing is the holder's alone.
    store.releaseRun('run-h', 'host-a pid 1');
    assert.equal(store.runHold('run-h')?.holder, 'host-b pid 2');
    store.releaseRun('run-h', 'host-b pid 2');
    assert.equal(store.runHold('run-h'), undefined);
    // A lease that is not renewed lapses: the run is free again.
    assert.equal(store.holdRun('run-h', 'host-c pid 3', 1, () => false), undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(store.runHold('run-h'), undefined);
    assert.equal(store.holdRun('run-h', 'host-d pid 4', 60_000, () => false), undefined);
    assert.throws(() => store.holdRun('no-such-run', 'host-a pid 1', 60_000, () => false), /no run 'no-such-run'/);
  }));
}

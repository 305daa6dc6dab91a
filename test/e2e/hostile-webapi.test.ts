/**
 * Issue 14 end to end: a replayed webapi run of a hundred hostile answers with valid ones interleaved, through
 * `runEvaluation`. Every episode is scored on its first attempt with the failure code its answer deserves (none
 * is an infrastructure error), the valid answers score as they do alone, and the results file stays small.
 * Peak memory of the same run is measured by bench/hostile.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTasks, getSuite, openResultsStore, resolveKnobs, runEvaluation } from '../../src/index.ts';
import { textCaps } from '../../src/core/cap-text.ts';
import { requireData } from '../require-data.ts';
import { temporaryDirectory } from './run-cli.ts';
import { hostileWebapiAnswers, validWebapiAnswers, type HostileAnswer } from './hostile-webapi-answers.ts';

const skip = requireData('wapiibench');

/** Hostile answers with a valid one after every fourth, in one list (one trial each). */
export function interleavedAnswers(): HostileAnswer[] {
  return hostileWebapiAnswers.flatMap((answer, index) => (index % 4 === 3 ? [answer, validWebapiAnswers[(index >> 2) % validWebapiAnswers.length]] : [answer]));
}

async function replayRun(answers: readonly HostileAnswer[], directory: string, name: string) {
  const suite = getSuite('webapi');
  const params = resolveKnobs(suite.id, suite.knobs, { executionTimeMs: '5000' });
  const [task] = await generateTasks(suite, { seed: 0, count: 1, params });
  const replay = join(directory, `${name}.jsonl`);
  writeFileSync(replay, answers.map((answer, trial) => JSON.stringify({ taskId: task.id, trial, output: answer.output })).join('\n'));
  const dbPath = join(directory, `${name}.db`);
  await runEvaluation({ suite, tasks: [task], modelRef: `replay/${replay}`, trials: answers.length, seed: 0, params, dbPath, concurrency: 4 });
  const store = openResultsStore(dbPath);
  try {
    const [run] = store.listRuns();
    const episodes = store.listEpisodes(run.id).sort((left, right) => left.trial - right.trial);
    return { episodes, dbBytes: statSync(dbPath).size };
  } finally {
    store.close();
  }
}

test('a hundred hostile webapi answers are each scored on attempt 1 with the right failure code; valid ones interleaved are unchanged', { skip }, async () => {
  assert.ok(hostileWebapiAnswers.length >= 100, `${hostileWebapiAnswers.length} hostile answers`);
  const directory = temporaryDirectory();
  const answers = interleavedAnswers();
  const { episodes, dbBytes } = await replayRun(answers, directory, 'hostile');
  const alone = await replayRun(validWebapiAnswers, directory, 'valid');
  assert.equal(episodes.length, answers.length);
  const wrong: string[] = [];
  for (const [trial, answer] of answers.entries()) {
    const episode = episodes[trial];
    const got = episode.score === null ? `${episode.status} (${episode.error?.message.slice(0, 200)})` : episode.score.passed ? 'passed' : episode.score.failure;
    if (episode.status !== 'scored' || episode.attempts !== 1 || got !== answer.failure || (episode.score?.reason.length ?? 0) > textCaps.message) {
      wrong.push(`${answer.name}: expected ${answer.failure} on attempt 1, got ${got} (${episode.status}, attempt ${episode.attempts}): ${episode.score?.reason.slice(0, 200)}`);
    }
  }
  assert.deepEqual(wrong, []);
  const scoreOf = (name: string, list: readonly HostileAnswer[], scored: typeof episodes) => scored[list.findIndex((answer) => answer.name === name)].score;
  for (const [trial, answer] of answers.entries()) {
    if (validWebapiAnswers.includes(answer)) assert.deepEqual(episodes[trial].score, scoreOf(answer.name, validWebapiAnswers, alone.episodes), answer.name);
  }
  assert.ok(dbBytes < 10 * 1024 * 1024, `results file ${dbBytes} bytes`);
});

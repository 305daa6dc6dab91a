/**
 * webapi: sandboxed programs executed per second (the 395 gold axios calls, run in the QuickJS
 * sandbox as the code agent runs them) and the time to score all 395 gold samples through the whole
 * pipeline (oracle answer -> webapi agent -> program extraction -> sandbox -> capture -> comparison).
 */
import { hasDataset } from '../src/core/data-location.ts';
import type { Task } from '../src/core/task.ts';
import { createLazySandbox } from '../src/runner/lazy-sandbox.ts';
import { runEpisode } from '../src/runner/run-episode.ts';
import { resolveModelSource } from '../src/runner/resolve-model-source.ts';
import { resolveKnobs } from '../src/suites/knob.ts';
import { renderAxiosCall, webapiSuite } from '../src/suites/webapi/index.ts';
import { readWebapiExpected } from '../src/suites/webapi/webapi-task.ts';
import type { BenchFigure } from './bench-figure.ts';


/** One sandbox pool for every episode here, as a run has. */
const sandboxPool = createLazySandbox(2);
export async function benchWebapi(): Promise<Record<string, number | string>> {
  const params = resolveKnobs(webapiSuite.id, webapiSuite.knobs, {});
  const tasks: Task[] = await webapiSuite.generate({ seed: 0, count: undefined, params });
  const programs = tasks.map((task) => renderAxiosCall(readWebapiExpected(task).config));
  try {
    const sandbox = sandboxPool.get();
    await sandbox.run({ code: programs[0], http: { excessCode: 'stop-after-first-request' } });
    let executed = 0;
    const programStart = performance.now();
    await Promise.all([0, 1].map(async (lane) => {
      for (let index = lane; index < programs.length; index += 2) {
        await sandbox.run({ code: programs[index], http: { excessCode: 'stop-after-first-request' } });
        executed += 1;
      }
    }));
    const programSeconds = (performance.now() - programStart) / 1000;

    const oracle = resolveModelSource(webapiSuite, 'builtin/oracle');
    let correct = 0;
    const scoreStart = performance.now();
    await Promise.all([0, 1, 2, 3].map(async (lane) => {
      for (let index = lane; index < tasks.length; index += 4) {
        const result = await runEpisode({ suite: webapiSuite, task: tasks[index], trial: 0, mode: 'code', model: oracle, sandbox: () => sandboxPool.get() });
        if (result.score.passed) correct += 1;
      }
    }));
    const scoreSeconds = (performance.now() - scoreStart) / 1000;
    return {
      sandboxedProgramsPerSecond: executed / programSeconds,
      goldSamples: tasks.length,
      goldSamplesCorrect: correct,
      secondsToScoreAllGoldSamples: scoreSeconds,
    };
  } finally {
    await sandboxPool.dispose();
  }
}

/** The figures bench/run.ts prints. */
export async function bench(): Promise<BenchFigure[]> {
  if (!hasDataset('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json')) {
    console.log('  skipped: needs the wapiibench data set (its 395 tasks and 4 specs): toolforge data fetch wapiibench, or set $TOOLFORGE_DATA');
    return [];
  }
  const figures = await benchWebapi();
  return [
    { name: 'webapi sandboxed programs executed (395 gold axios calls, 2 workers)', value: Number(figures.sandboxedProgramsPerSecond), unit: 'programs/s' },
    { name: `webapi time to score all ${figures.goldSamples} gold samples (oracle, whole pipeline, ${figures.goldSamplesCorrect} correct)`, value: Number(figures.secondsToScoreAllGoldSamples), unit: 's' },
  ];
}

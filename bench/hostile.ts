/**
 * Containment under hostile programs (issue 14): a replayed webapi run of the hundred hostile answers of
 * test/e2e/hostile-webapi-answers.ts with valid ones interleaved, through runEvaluation. Prints the peak RSS
 * (sampled every 20 ms, workers included: they are threads of this process), the results file size and the
 * wall time. Target: peak RSS under 400 MB, results file under 10 MB. Asserts nothing.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasDataset } from '../src/core/data-location.ts';
import { generateTasks, getSuite, openResultsStore, resolveKnobs, runEvaluation } from '../src/index.ts';
import { hostileWebapiAnswers, validWebapiAnswers } from '../test/e2e/hostile-webapi-answers.ts';
import type { BenchFigure } from './bench-figure.ts';

export async function bench(): Promise<BenchFigure[]> {
  if (!hasDataset('wapiibench')) {
    console.log('  skipped: needs ../shared/data/wapiibench (the WAPIIBench specs)');
    return [];
  }
  const answers = hostileWebapiAnswers.flatMap((answer, index) => (index % 4 === 3 ? [answer, validWebapiAnswers[(index >> 2) % validWebapiAnswers.length]] : [answer]));
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-hostile-'));
  try {
    const suite = getSuite('webapi');
    const params = resolveKnobs(suite.id, suite.knobs, { executionTimeMs: '5000' });
    const [task] = await generateTasks(suite, { seed: 0, count: 1, params });
    const replay = join(directory, 'hostile.jsonl');
    writeFileSync(replay, answers.map((answer, trial) => JSON.stringify({ taskId: task.id, trial, output: answer.output })).join('\n'));
    const dbPath = join(directory, 'results.db');
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    let peakDetail = '';
    const sampler = setInterval(() => {
      const usage = process.memoryUsage();
      if (usage.rss > peakRss) {
        peakRss = usage.rss;
        if (process.env.HOSTILE_DETAIL) peakDetail = JSON.stringify(Object.fromEntries(Object.entries(usage).map(([k, v]) => [k, Math.round(v / 1e6)])));
      }
    }, 20);
    const start = performance.now();
    try {
      await runEvaluation({ suite, tasks: [task], modelRef: `replay/${replay}`, trials: answers.length, seed: 0, params, dbPath, concurrency: 4 });
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - start) / 1000;
    if (peakDetail) console.log(`  at the peak (MB): ${peakDetail}`);
    const store = openResultsStore(dbPath);
    let scoredFirstAttempt = 0;
    try {
      const [run] = store.listRuns();
      scoredFirstAttempt = store.listEpisodes(run.id).filter((episode) => episode.status === 'scored' && episode.attempts === 1).length;
    } finally {
      store.close();
    }
    const megabytes = (bytes: number): number => bytes / (1024 * 1024);
    return [
      { name: `hostile webapi run (${hostileWebapiAnswers.length} hostile + ${answers.length - hostileWebapiAnswers.length} valid answers), wall time`, value: seconds, unit: 's' },
      { name: 'episodes scored on attempt 1', value: scoredFirstAttempt, unit: `of ${answers.length}` },
      { name: 'peak RSS during the run (target < 400)', value: megabytes(peakRss), unit: 'MB' },
      { name: 'RSS before the run', value: megabytes(rssBefore), unit: 'MB' },
      { name: 'results file (target < 10)', value: megabytes(statSync(dbPath).size), unit: 'MB' },
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

// Run directly: `node --import tsx bench/hostile.ts`.
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const figure of await bench()) console.log(`  ${figure.name}: ${figure.value.toFixed(1)} ${figure.unit}`);
  process.exit(0);
}

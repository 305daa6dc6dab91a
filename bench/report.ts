/**
 * Scale of the results store: a 10,000-episode run (1,000 funcgen tasks x 10 trials of builtin/random, made
 * once and cached under the OS temp folder), then the database size, `toolforge report` wall time and peak RSS
 * (in a fresh process, as a user runs it), and the viewer's index and run page latency. Prints, asserts nothing.
 * Targets (issue 10): report under 2 s and 300 MB; the viewer's index under 300 ms. Then the same report's peak RSS
 * at 100,000 episodes (1,000 funcgen tasks x 100 trials of builtin/planner, cached the same way): the report reads
 * episodes a page at a time (issue 8), so it should stay near the 10,000-episode figure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReportServer } from '../src/report/report-server.ts';
import { generateTasks } from '../src/runner/generate-tasks.ts';
import { runEvaluation } from '../src/runner/run-evaluation.ts';
import { openResultsStore } from '../src/store/results-store.ts';
import { resolveKnobs } from '../src/suites/knob.ts';
import { getSuite } from '../src/suites/registry.ts';
import type { BenchFigure } from './bench-figure.ts';

const binPath = fileURLToPath(new URL('../bin/toolforge.js', import.meta.url));
const distMain = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const distMainUrl = new URL('../dist/cli/main.js', import.meta.url).href;

async function makeRun(dbPath: string, modelRef = 'builtin/random', trials = 10): Promise<string> {
  if (existsSync(dbPath)) {
    const store = openResultsStore(dbPath, { readOnly: true });
    const run = store.latestRun();
    const complete = run !== undefined && store.countEpisodes(run.id).scored === 1_000 * trials;
    store.close();
    if (complete && run) return run.id;
  }
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, {});
  const tasks = await generateTasks(suite, { seed: 10, count: 1_000, params });
  return (await runEvaluation({ suite, tasks, modelRef, seed: 10, params, dbPath, trials, concurrency: 8 })).runId;
}

/**
 * Runs `toolforge report` in a fresh process, the way an installed package runs it (the compiled dist/, built
 * first when missing) or the way a checkout runs it (through tsx, which adds its compile time); GNU time
 * (/usr/bin/time, when present) gives the peak RSS, which is what a user's machine has to hold.
 */
function timeReport(dbPath: string, runId: string, format: string, how: 'dist' | 'tsx'): { ms: number; rssMb: number } {
  const cliArguments = ['report', runId, '--format', format, '--db', dbPath];
  const command = how === 'tsx'
    ? [process.execPath, binPath, ...cliArguments]
    : [process.execPath, '--input-type=module', '-e',
      `const { main } = await import(${JSON.stringify(distMainUrl)}); process.exitCode = await main(process.argv.slice(1));`, ...cliArguments];
  const hasTime = existsSync('/usr/bin/time');
  const start = performance.now();
  const result = hasTime
    ? spawnSync('/usr/bin/time', ['-f', 'peak-rss-kb %M', ...command], { encoding: 'utf8', maxBuffer: 1 << 30 })
    : spawnSync(command[0], command.slice(1), { encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`report --format ${format} failed: ${result.stderr}`);
  const rssKb = Number(/peak-rss-kb (\d+)/.exec(result.stderr)?.[1] ?? Number.NaN);
  return { ms, rssMb: rssKb / 1024 };
}

async function latency(url: string, repeats = 5): Promise<number> {
  await (await fetch(url)).text();
  const times: number[] = [];
  for (let index = 0; index < repeats; index += 1) {
    const start = performance.now();
    const response = await fetch(url);
    await response.text();
    times.push(performance.now() - start);
  }
  return times.sort((left, right) => left - right)[Math.floor(times.length / 2)];
}

export async function bench(): Promise<BenchFigure[]> {
  const dbPath = join(tmpdir(), 'toolforge-bench-report-10000.db');
  const runId = await makeRun(dbPath);
  const figures: BenchFigure[] = [{ name: 'database size (10,000 episodes)', value: statSync(dbPath).size / 1024 / 1024, unit: 'MB' }];
  if (!existsSync(distMain)) spawnSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))], { stdio: 'ignore' });
  for (const format of ['table', 'json', 'html']) {
    const { ms, rssMb } = timeReport(dbPath, runId, format, 'dist');
    figures.push({ name: `report --format ${format} (10,000 episodes, built package)`, value: ms, unit: 'ms' });
    figures.push({ name: `report --format ${format} peak RSS`, value: rssMb, unit: 'MB' });
  }
  const largeDbPath = join(tmpdir(), 'toolforge-bench-report-100000.db');
  const largeRunId = await makeRun(largeDbPath, 'builtin/planner', 100);
  const large = timeReport(largeDbPath, largeRunId, 'json', 'dist');
  figures.push({ name: 'report --format json (100,000 episodes, built package)', value: large.ms, unit: 'ms' });
  figures.push({ name: 'report --format json peak RSS (100,000 episodes)', value: large.rssMb, unit: 'MB' });
  const checkout = timeReport(dbPath, runId, 'table', 'tsx');
  figures.push({ name: 'report --format table from a checkout (tsx compiles on start)', value: checkout.ms, unit: 'ms' });
  const server = await startReportServer({ dbPath });
  try {
    figures.push({ name: 'viewer index (median of 5)', value: await latency(server.url), unit: 'ms' });
    figures.push({ name: 'viewer run page, failed only (median of 5)', value: await latency(new URL(`runs/${runId}?outcome=failed`, server.url).href), unit: 'ms' });
    figures.push({ name: 'viewer task page (median of 5)', value: await latency(new URL(`runs/${runId}/tasks/funcgen/10/500`, server.url).href), unit: 'ms' });
    figures.push({ name: 'api episodes page of 100 (median of 5)', value: await latency(new URL(`api/runs/${runId}/episodes?status=scored&limit=100`, server.url).href), unit: 'ms' });
  } finally {
    await server.close();
  }
  return figures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const figure of await bench()) console.log(`${figure.name}: ${figure.value.toFixed(1)} ${figure.unit}`);
}

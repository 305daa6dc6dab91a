/**
 * Scale of the results store: a 10,000-episode run (1,000 funcgen tasks x 10 trials of builtin/random, made
 * once and cached under the OS temp folder), then the database size, `toolforge report` wall time and peak RSS
 * (in a fresh process, as a user runs it), and the viewer's index and run page latency. Prints, asserts nothing.
 * Targets (issue 10): report under 2 s and 300 MB; the viewer's index under 300 ms.
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

async function makeRun(dbPath: string): Promise<string> {
  if (existsSync(dbPath)) {
    const store = openResultsStore(dbPath, { readOnly: true });
    const run = store.latestRun();
    const complete = run !== undefined && store.countEpisodes(run.id).scored === 10_000;
    store.close();
    if (complete && run) return run.id;
  }
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, {});
  const tasks = await generateTasks(suite, { seed: 10, count: 1_000, params });
  return (await runEvaluation({ suite, tasks, modelRef: 'builtin/random', seed: 10, params, dbPath, trials: 10, concurrency: 8 })).runId;
}

/**
 * Runs `toolforge report` in a fresh process; GNU time (/usr/bin/time, when present) gives its peak RSS,
 * which is what a user's machine has to hold.
 */
function timeReport(dbPath: string, runId: string, format: string): { ms: number; rssMb: number } {
  const command = [process.execPath, binPath, 'report', runId, '--format', format, '--db', dbPath];
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
  for (const format of ['table', 'json', 'html']) {
    const { ms, rssMb } = timeReport(dbPath, runId, format);
    figures.push({ name: `report --format ${format} (10,000 episodes)`, value: ms, unit: 'ms' });
    figures.push({ name: `report --format ${format} peak RSS`, value: rssMb, unit: 'MB' });
  }
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

/**
 * Containment under hostile programs (issue 14): a replayed webapi run of the hundred hostile answers of
 * test/e2e/hostile-webapi-answers.ts with valid ones interleaved, run as a user runs it (`toolforge run webapi
 * --model replay/<file> --trials 125`) in a child process, so the peak RSS is the run's own
 * (process.resourceUsage().maxRSS, sandbox worker threads included). Measured twice when possible:
 * - bin/toolforge.js as a user runs it, which runs the built package (dist/, what `npm ci` and `npm install` give)
 *   while it is newer than every source (otherwise skipped, saying so: `npm run build`);
 * - bin/toolforge.js forced onto the sources through tsx (TOOLFORGE_FROM_SOURCE=1, a developer's edit loop),
 *   which also loads tsx into every sandbox worker: about 95 MB more at start-up.
 * A one-episode run of the same kind gives the start-up cost. Prints the peak RSS, the results file size, the
 * episodes scored on attempt 1 and the wall time. Target: peak RSS under 400 MB, results file under 10 MB.
 * Asserts nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hasDataset, repositoryRoot } from '../src/core/data-location.ts';
import { generateTasks, getSuite, openResultsStore, resolveKnobs } from '../src/index.ts';
import { hostileWebapiAnswers, validWebapiAnswers } from '../test/e2e/hostile-webapi-answers.ts';
import type { BenchFigure } from './bench-figure.ts';

const peakRssPreload = resolve(repositoryRoot, 'bench', 'scale', 'peak-rss-on-exit.mjs');
const megabytes = (bytes: number): number => bytes / (1024 * 1024);

type Entry = { label: string; argv: string[]; env?: Record<string, string> };

/** The newest modification time under `directory` (files only). */
function newestFile(directory: string): number {
  return Math.max(0, ...readdirSync(directory, { withFileTypes: true }).map((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? newestFile(path) : statSync(path).mtimeMs;
  }));
}

/**
 * How to start the CLI: bin/toolforge.js as a user runs it (it runs dist/ when dist/ is up to date, so that is
 * measured only then), and bin/toolforge.js forced onto the sources through tsx.
 */
function entries(): { entries: Entry[]; skipped?: string } {
  const bin = resolve(repositoryRoot, 'bin', 'toolforge.js');
  const fromSource: Entry = { label: 'from the sources through tsx', argv: [bin], env: { TOOLFORGE_FROM_SOURCE: '1' } };
  const built = (() => { try { return statSync(resolve(repositoryRoot, 'dist', 'build-complete')).mtimeMs; } catch { return 0; } })();
  if (built < newestFile(resolve(repositoryRoot, 'src'))) {
    return { entries: [fromSource], skipped: 'dist/ is missing or older than src/ (npm run build), so the built package was not measured' };
  }
  return { entries: [{ label: 'bin/toolforge.js running the built package', argv: [bin] }, fromSource] };
}

function runChild(argv: string[], cwd: string, rssFile: string, env: Record<string, string> = {}): Promise<{ seconds: number; peakRssMb: number }> {
  const start = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', peakRssPreload, ...argv], {
      cwd, env: { ...process.env, ...env, TOOLFORGE_BENCH_PEAK_RSS_FILE: rssFile }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - start) / 1000;
      if (code !== 0) return reject(new Error(`${argv.join(' ')} exited with ${code}: ${stderr.slice(0, 400)}`));
      resolvePromise({ seconds, peakRssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 });
    });
  });
}

export async function bench(): Promise<BenchFigure[]> {
  if (!hasDataset('wapiibench')) {
    console.log('  skipped: needs the wapiibench data set (the WAPIIBench specs): toolforge data fetch wapiibench, or set $TOOLFORGE_DATA');
    return [];
  }
  const answers = hostileWebapiAnswers.flatMap((answer, index) => (index % 4 === 3 ? [answer, validWebapiAnswers[(index >> 2) % validWebapiAnswers.length]] : [answer]));
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-hostile-'));
  try {
    const suite = getSuite('webapi');
    const knobs = { executionTimeMs: '5000' };
    const [task] = await generateTasks(suite, { seed: 0, count: 1, params: resolveKnobs(suite.id, suite.knobs, knobs) });
    const replay = join(directory, 'hostile.jsonl');
    writeFileSync(replay, answers.map((answer, trial) => JSON.stringify({ taskId: task.id, trial, output: answer.output })).join('\n'));
    const oneReplay = join(directory, 'one.jsonl');
    writeFileSync(oneReplay, JSON.stringify({ taskId: task.id, trial: 0, output: validWebapiAnswers[0].output }));
    const runArgs = (file: string, trials: number, dbPath: string): string[] => ['run', 'webapi', '--model', `replay/${file}`, '--count', '1', '--seed', '0',
      ...Object.entries(knobs).flatMap(([name, value]) => ['--set', `${name}=${value}`]), '--trials', String(trials), '--concurrency', '4', '--db', dbPath];

    const { entries: chosen, skipped } = entries();
    if (skipped) console.log(`  ${skipped}`);
    const figures: BenchFigure[] = [];
    for (const [index, entry] of chosen.entries()) {
      const dbPath = join(directory, `results-${index}.db`);
      const startUp = await runChild([...entry.argv, ...runArgs(oneReplay, 1, join(directory, `one-${index}.db`))], directory, join(directory, `one-${index}.rss`), entry.env);
      const run = await runChild([...entry.argv, ...runArgs(replay, answers.length, dbPath)], directory, join(directory, `run-${index}.rss`), entry.env);
      const store = openResultsStore(dbPath);
      let scoredFirstAttempt = 0;
      try {
        const [stored] = store.listRuns();
        scoredFirstAttempt = store.listEpisodes(stored.id).filter((episode) => episode.status === 'scored' && episode.attempts === 1).length;
      } finally {
        store.close();
      }
      figures.push(
        { name: `hostile webapi run ${entry.label} (${hostileWebapiAnswers.length} hostile + ${answers.length - hostileWebapiAnswers.length} valid answers, load ${loadavg()[0].toFixed(1)}), wall time`, value: run.seconds, unit: 's' },
        { name: `  episodes scored on attempt 1 (${entry.label})`, value: scoredFirstAttempt, unit: `of ${answers.length}` },
        { name: `  peak RSS of the run (${entry.label}; target < 400)`, value: run.peakRssMb, unit: 'MB' },
        { name: `  peak RSS of a one-episode run (${entry.label}; start-up)`, value: startUp.peakRssMb, unit: 'MB' },
        { name: `  results file (${entry.label}; target < 10)`, value: megabytes(statSync(dbPath).size), unit: 'MB' },
      );
    }
    return figures;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

// Run directly: `node --import tsx bench/hostile.ts`.
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const figure of await bench()) console.log(`  ${figure.name}: ${figure.value.toFixed(1)} ${figure.unit}`);
  process.exit(0);
}

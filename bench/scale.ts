/**
 * The runner at scale (issue 8): every figure is measured in a separate process, so its peak RSS is the
 * run's own (process.resourceUsage().maxRSS in the child).
 * - nestful replay end to end: `toolforge run nestful --set data=<file> --model replay/<file>` as a user runs
 *   it, with a temporary database, on freshly generated executable samples whose gold sequences are replayed.
 *   A one-sample run gives the fixed start-up cost, taken out of the per-sample figure.
 * - funcgen builtin/planner episodes run, scored and stored per second (tasks x trials episodes, one process).
 * - episodes/s at 256 in flight against a local OpenAI-compatible stand-in that answers after 200 ms (one
 *   request per episode), against the ideal 256 / 0.2 s.
 * Sizes: TOOLFORGE_BENCH_SCALE_SAMPLES (default 2,000) and TOOLFORGE_BENCH_SCALE_EPISODES (default 10,000);
 * set both to 100000 for the 100,000-episode figures (minutes on 2 cores).
 * The official scorer is NOT run here: ~8 ms per sample is the reference study's figure (seeds-reference 1.6).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repositoryRoot } from '../src/core/data-location.ts';
import { generateSample } from '../src/suites/nestful/generate-samples.ts';
import type { BenchFigure } from './bench-figure.ts';

const folder = fileURLToPath(new URL('./scale/', import.meta.url));
/** Children run in a temporary folder: tsx is named by its resolved location, not looked up from there. */
const tsxLoader = import.meta.resolve('tsx');
const officialMsPerSample = (14.85 / 1861) * 1000;
const samplesToReplay = Number(process.env.TOOLFORGE_BENCH_SCALE_SAMPLES ?? 2000);
const plannerEpisodes = Number(process.env.TOOLFORGE_BENCH_SCALE_EPISODES ?? 10000);

type ChildResult = { seconds: number; stdout: string; peakRssMb: number };

let children = 0;

function runChild(args: string[], cwd: string): Promise<ChildResult> {
  children += 1;
  const rssFile = join(cwd, `peak-rss-${children}.txt`);
  const start = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', join(folder, 'peak-rss-on-exit.mjs'), ...args], {
      cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, TOOLFORGE_BENCH_PEAK_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - start) / 1000;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr.slice(0, 400)}`));
      resolvePromise({ seconds, stdout, peakRssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 });
    });
  });
}

/** Generated executable samples as a NESTFUL data file, and their gold sequences as a replay file. */
function writeNestfulFiles(directory: string, count: number): void {
  const knobs = { calls: 4, depth: 2, fanin: 2, distractors: 4 };
  const samples: string[] = [];
  const outputs: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const { sample } = generateSample(2026, index, knobs);
    const sampleId = `bench-${index}`;
    samples.push(`{"sample_id": ${JSON.stringify(sampleId)}, "input": ${JSON.stringify(sample.input)}, "output": ${sample.outputJson}, `
      + `"tools": ${JSON.stringify(sample.tools)}, "gold_answer": ${sample.goldAnswerJson}}`);
    outputs.push(JSON.stringify({ taskId: `nestful/${sampleId}`, output: sample.outputJson }));
  }
  writeFileSync(join(directory, `samples-${count}.jsonl`), `${samples.join('\n')}\n`);
  writeFileSync(join(directory, `outputs-${count}.jsonl`), `${outputs.join('\n')}\n`);
}

async function replayNestful(directory: string, count: number): Promise<ChildResult & { passRate: number }> {
  writeNestfulFiles(directory, count);
  const result = await runChild([resolve(repositoryRoot, 'bin', 'toolforge.js'), 'run', 'nestful', '--set', `data=samples-${count}.jsonl`,
    '--model', `replay/outputs-${count}.jsonl`, '--db', `results-${count}.db`, '--json'], directory);
  return { ...result, passRate: (JSON.parse(result.stdout) as { passRate: number }).passRate };
}

function load(): string {
  return loadavg().map((value) => value.toFixed(1)).join(' ');
}

export async function bench(): Promise<BenchFigure[]> {
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-bench-scale-'));
  try {
    const figures: BenchFigure[] = [];
    const startUp = await replayNestful(directory, 1);
    const replay = await replayNestful(directory, samplesToReplay);
    const msPerSample = ((replay.seconds - startUp.seconds) * 1000) / (samplesToReplay - 1);
    figures.push(
      { name: `nestful replay end to end (toolforge run nestful --model replay/..., ${samplesToReplay} generated samples, pass rate ${replay.passRate}, load ${load()}), per sample after start-up`, value: msPerSample, unit: 'ms/sample' },
      { name: 'nestful replay end to end: fixed start-up (a one-sample run)', value: startUp.seconds, unit: 's' },
      { name: 'reference only: official scorer.py per sample, 14.85 s / 1,861 samples as measured by the reference study (seeds-reference 1.6), not re-measured here', value: officialMsPerSample, unit: 'ms/sample' },
      { name: 'nestful replay end to end vs that reference figure (goal >= 50x)', value: officialMsPerSample / msPerSample, unit: 'x' },
      { name: `nestful replay end to end: peak RSS of the run process (${samplesToReplay} samples)`, value: replay.peakRssMb, unit: 'MB' },
    );
    const trials = Math.max(1, Math.round(plannerEpisodes / 1000));
    const tasks = Math.round(plannerEpisodes / trials);
    const planner = await runChild(['--import', tsxLoader, join(folder, 'funcgen-episodes.ts'), String(tasks), String(trials), 'planner.db'], directory);
    const plannerResult = JSON.parse(planner.stdout) as { episodes: number; seconds: number; peakRssKb: number };
    figures.push(
      { name: `funcgen builtin/planner episodes run, scored and stored (${tasks} tasks x ${trials} trials, concurrency 4, load ${load()}; goal >= 2,000)`, value: plannerResult.episodes / plannerResult.seconds, unit: 'episodes/s' },
      { name: `funcgen builtin/planner: peak RSS of the run process (${plannerResult.episodes} episodes; goal < 300 MB at 100,000)`, value: plannerResult.peakRssKb / 1024, unit: 'MB' },
    );
    const inFlight = 256;
    const latencyMs = 200;
    const standInEpisodes = inFlight * 8;
    const standIn = await runChild(['--import', tsxLoader, join(folder, 'stand-in-endpoint.ts'), String(standInEpisodes), String(inFlight), String(latencyMs), 'stand-in.db'], directory);
    const standInResult = JSON.parse(standIn.stdout) as { episodes: number; seconds: number; peakInFlight: number };
    const ideal = inFlight / (latencyMs / 1000);
    const achieved = standInResult.episodes / standInResult.seconds;
    figures.push(
      { name: `episodes at ${inFlight} in flight against a ${latencyMs} ms stand-in endpoint on 127.0.0.1 (${standInResult.episodes} one-request funcgen episodes, peak ${standInResult.peakInFlight} requests in flight, load ${load()})`, value: achieved, unit: 'episodes/s' },
      { name: `the same as a share of the ideal ${inFlight} / ${latencyMs / 1000} s = ${ideal} episodes/s (goal >= 90%)`, value: (100 * achieved) / ideal, unit: '%' },
    );
    return figures;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

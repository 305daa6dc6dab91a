/**
 * nestful: what re-scoring costs.
 * - User level (the figure that counts): `toolforge run nestful --set data=<file> --model replay/<file>`
 *   as a user runs it, a separate process with a temporary results database, timed end to end and divided
 *   by the samples; the data are freshly generated executable samples, the replayed outputs their gold
 *   sequences. A one-sample run gives the fixed start-up cost.
 * - Library level: the official metrics, win rate (execution) included, over the shared NESTFUL data
 *   (ICL samples + v1 release) replicated to ~2,000 samples with the gold sequences as predictions. Every
 *   replica's gold text differs by leading whitespace, so nothing is served from the scorer's parse cache.
 * The official Python scorer's cost is NOT measured here (its code is not in this repository): the
 * reference study's one measurement, 14.85 s for 1,861 samples (`reference/seeds-reference.md` section
 * 1.6: scorer.py on the 3 ICL samples replicated, Python 3.11, this machine class), is printed as a
 * reference and every ratio to it says so.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { datasetPath, hasDataset, repositoryRoot } from '../src/core/data-location.ts';
import { importNestfulSamples } from '../src/suites/nestful/import-samples.ts';
import type { NestfulSample } from '../src/suites/nestful/nestful-sample.ts';
import { scoreNestfulPredictions } from '../src/suites/nestful/score-predictions.ts';
import { generateSample } from '../src/suites/nestful/generate-samples.ts';
import type { BenchFigure } from './bench-figure.ts';
import { itemsPerSecond } from './bench-figure.ts';

const dataFiles = [
  ['src', 'icl_examples.json'],
  ['data_v1', 'executable', 'executable-data.json'],
  ['data_v1', 'non-executable', 'non-executable-glaive-data.json'],
  ['data_v1', 'non-executable', 'non-executable-sgd-data.json'],
];

/** The reference study's measurement of the official scorer (seeds-reference section 1.6), not ours. */
const officialSecondsPerSample = 14.85 / 1861;
const officialSamplesPerSecond = 1 / officialSecondsPerSample;
const officialSource = 'official scorer.py, 14.85 s / 1,861 samples as measured by the reference study (seeds-reference 1.6), not re-measured here';

/** A generated sample as a v2 data line; the gold list and answer keep their Python text (float literals). */
function dataLine(sample: NestfulSample): string {
  return `{"sample_id": ${JSON.stringify(sample.sampleId)}, "input": ${JSON.stringify(sample.input)}, "output": ${sample.outputJson}, `
    + `"tools": ${JSON.stringify(sample.tools)}, "gold_answer": ${sample.goldAnswerJson}}`;
}

function runCliProcess(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string; seconds: number }> {
  const start = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [resolve(repositoryRoot, 'bin', 'toolforge.js'), ...args], {
      cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? 1, stdout, stderr, seconds: (performance.now() - start) / 1000 }));
  });
}

/** `run nestful --set data=... --model replay/...` through the real CLI, in a temporary folder and database. */
async function replayThroughCli(count: number): Promise<{ seconds: number; passRate: unknown }> {
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-bench-nestful-'));
  try {
    const knobs = { calls: 4, depth: 2, fanin: 2, distractors: 4 };
    const samples = Array.from({ length: count }, (_, index) => {
      const { sample } = generateSample(2026, index, knobs);
      return { ...sample, sampleId: `bench-${index}` };
    });
    writeFileSync(join(directory, 'samples.jsonl'), `${samples.map(dataLine).join('\n')}\n`);
    writeFileSync(join(directory, 'outputs.jsonl'), `${samples.map((sample) => JSON.stringify({ taskId: `nestful/${sample.sampleId}`, output: sample.outputJson })).join('\n')}\n`);
    const result = await runCliProcess(['run', 'nestful', '--set', `data=${join(directory, 'samples.jsonl')}`,
      '--model', `replay/${join(directory, 'outputs.jsonl')}`, '--db', join(directory, 'results.db'), '--json'], directory);
    if (result.code !== 0) throw new Error(`toolforge run exited with ${result.code}: ${result.stderr.slice(0, 400)}`);
    let passRate: unknown = null;
    try {
      const summary = JSON.parse(result.stdout) as Record<string, unknown>;
      passRate = JSON.stringify(summary).match(/"passRate":\s*([0-9.]+)/)?.[1] ?? null;
    } catch { /* the timing stands without the summary */ }
    return { seconds: result.seconds, passRate };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function replicatedSamples(target: number, files: readonly string[][]): NestfulSample[] {
  const base = files.flatMap((parts) => importNestfulSamples(datasetPath('nestful', ...parts)));
  return Array.from({ length: target }, (_, index) => {
    const sample = base[index % base.length];
    return { ...sample, sampleId: `${sample.sampleId}#${index}`, outputJson: `${' '.repeat(Math.floor(index / base.length))}${sample.outputJson}` };
  });
}

async function scoringThroughput(samples: readonly NestfulSample[]) {
  const predictions = samples.map((sample) => sample.outputJson.trim());
  let last = scoreNestfulPredictions(samples, predictions);
  const figure = await itemsPerSecond('scored', 'samples/s', async () => {
    last = scoreNestfulPredictions(samples, predictions);
    return samples.length;
  });
  return { samplesPerSecond: figure.value, metrics: last.metrics };
}

/** The data-set figures need the shared NESTFUL data; the reason they were skipped otherwise. */
function missingData(): string | undefined {
  const missing = dataFiles.filter((parts) => !hasDataset('nestful', ...parts));
  return missing.length === 0 ? undefined
    : `needs the nestful data set (${missing.map((parts) => parts.join('/')).join(', ')} not on this machine): toolforge data fetch nestful, or set $TOOLFORGE_DATA`;
}

export async function benchNestful(): Promise<Record<string, number | string>> {
  const cliSamples = 300;
  const startUp = await replayThroughCli(1);
  const endToEnd = await replayThroughCli(cliSamples);
  const knobs = { calls: 5, depth: 3, fanin: 2, distractors: 6 };
  let seed = 0;
  const generation = await itemsPerSecond('generated', 'samples/s', async () => {
    seed += 1;
    for (let index = 0; index < 200; index += 1) generateSample(seed, index, knobs);
    return 200;
  });
  const cliMsPerSample = (endToEnd.seconds * 1000) / cliSamples;
  const generated = {
    cliSamples,
    cliPassRate: String(endToEnd.passRate),
    cliMsPerSample,
    cliStartUpSeconds: startUp.seconds,
    cliMsPerSampleAfterStartUp: ((endToEnd.seconds - startUp.seconds) * 1000) / (cliSamples - 1),
    officialMsPerSample: officialSecondsPerSample * 1000,
    generatedSamplesPerSecond: Math.round(generation.value),
  };
  const skipped = missingData();
  if (skipped) return { ...generated, dataSkipped: skipped };
  const samples = replicatedSamples(2000, dataFiles);
  const all = await scoringThroughput(samples);
  // The reference's own setup: the 3 ICL samples (2 executable) replicated to 1,861 rows.
  const iclOnly = await scoringThroughput(replicatedSamples(1861, [dataFiles[0]]));
  return {
    ...generated,
    samples: samples.length,
    executableSamples: all.metrics.executableTasks,
    winRate: all.metrics.winRate ?? 'none',
    samplesScoredPerSecond: Math.round(all.samplesPerSecond),
    speedupOverOfficialScorer: Math.round(all.samplesPerSecond / officialSamplesPerSecond),
    iclSamplesScoredPerSecond: Math.round(iclOnly.samplesPerSecond),
    iclExecutableSamples: iclOnly.metrics.executableTasks,
    iclWinRate: iclOnly.metrics.winRate ?? 'none',
    iclSpeedupOverOfficialScorer: Math.round(iclOnly.samplesPerSecond / officialSamplesPerSecond),
  };
}

export async function bench(): Promise<BenchFigure[]> {
  const result = await benchNestful();
  const endToEnd: BenchFigure[] = [
    { name: `end to end: toolforge run nestful --model replay/... (separate process, temporary DB, ${result.cliSamples} generated samples, pass rate ${result.cliPassRate}), per sample incl. start-up`, value: Number(result.cliMsPerSample), unit: 'ms/sample' },
    { name: 'end to end: the same run\'s fixed start-up (a one-sample run)', value: Number(result.cliStartUpSeconds), unit: 's' },
    { name: 'end to end: per further sample (start-up taken out)', value: Number(result.cliMsPerSampleAfterStartUp), unit: 'ms/sample' },
    { name: `reference only: ${officialSource}`, value: Number(result.officialMsPerSample), unit: 'ms/sample' },
  ];
  const generation: BenchFigure = { name: 'generated samples (calls=5, depth=3, fanin=2, distractors=6)', value: Number(result.generatedSamplesPerSecond), unit: 'samples/s' };
  if (result.dataSkipped) {
    console.log(`  library scoring on the shared data: skipped (${result.dataSkipped})`);
    return [...endToEnd, generation];
  }
  return [
    ...endToEnd,
    { name: `library: samples scored incl. win rate (${result.samples} replicated shared samples, ${result.executableSamples} executable, win rate ${result.winRate})`, value: Number(result.samplesScoredPerSecond), unit: 'samples/s' },
    { name: 'library scoring vs the official scorer figure above (its number from the reference study, ours measured now)', value: Number(result.speedupOverOfficialScorer), unit: 'x' },
    { name: `library: samples scored incl. win rate, the reference's setup (3 ICL samples x 620, ${result.iclExecutableSamples} executable, win rate ${result.iclWinRate})`, value: Number(result.iclSamplesScoredPerSecond), unit: 'samples/s' },
    { name: 'library scoring on that setup vs the official scorer figure (reference study\'s number, same setup)', value: Number(result.iclSpeedupOverOfficialScorer), unit: 'x' },
    generation,
  ];
}

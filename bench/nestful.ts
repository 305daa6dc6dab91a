/**
 * nestful: scoring throughput of the official metrics, win rate (execution) included, over the shared
 * NESTFUL data (ICL samples + v1 release) replicated to ~2,000 samples with the gold sequences as
 * predictions. Every replica's gold text differs by leading whitespace, so nothing is served from the
 * scorer's parse cache. The official Python scorer needs about 8 ms per sample here (reference section
 * 1.6: 14.85 s for 1,861 samples), i.e. ~125 samples/s; the target is at least 50x that.
 */
import { datasetPath } from '../src/core/data-location.ts';
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

const officialSamplesPerSecond = 1861 / 14.85;

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

export async function benchNestful(): Promise<Record<string, number | string>> {
  const samples = replicatedSamples(2000, dataFiles);
  const all = await scoringThroughput(samples);
  // The reference's own measurement: the 3 ICL samples (2 executable) replicated to 1,861 rows.
  const iclOnly = await scoringThroughput(replicatedSamples(1861, [dataFiles[0]]));
  const knobs = { calls: 5, depth: 3, fanin: 2, distractors: 6 };
  let seed = 0;
  const generation = await itemsPerSecond('generated', 'samples/s', async () => {
    seed += 1;
    for (let index = 0; index < 200; index += 1) generateSample(seed, index, knobs);
    return 200;
  });
  return {
    samples: samples.length,
    executableSamples: all.metrics.executableTasks,
    winRate: all.metrics.winRate,
    samplesScoredPerSecond: Math.round(all.samplesPerSecond),
    speedupOverOfficialScorer: Math.round(all.samplesPerSecond / officialSamplesPerSecond),
    iclSamplesScoredPerSecond: Math.round(iclOnly.samplesPerSecond),
    iclExecutableSamples: iclOnly.metrics.executableTasks,
    iclWinRate: iclOnly.metrics.winRate,
    iclSpeedupOverOfficialScorer: Math.round(iclOnly.samplesPerSecond / officialSamplesPerSecond),
    generatedSamplesPerSecond: Math.round(generation.value),
  };
}

export async function bench(): Promise<BenchFigure[]> {
  const result = await benchNestful();
  return [
    { name: `samples scored incl. win rate (${result.samples} replicated shared samples, ${result.executableSamples} executable, win rate ${result.winRate})`, value: Number(result.samplesScoredPerSecond), unit: 'samples/s' },
    { name: 'speed-up over the official Python scorer (~125 samples/s here)', value: Number(result.speedupOverOfficialScorer), unit: 'x' },
    { name: `samples scored incl. win rate, the reference's own setup (3 ICL samples x 620, ${result.iclExecutableSamples} executable, win rate ${result.iclWinRate})`, value: Number(result.iclSamplesScoredPerSecond), unit: 'samples/s' },
    { name: 'speed-up over the official Python scorer on that setup', value: Number(result.iclSpeedupOverOfficialScorer), unit: 'x' },
    { name: 'generated samples (calls=5, depth=3, fanin=2, distractors=6)', value: Number(result.generatedSamplesPerSecond), unit: 'samples/s' },
  ];
}

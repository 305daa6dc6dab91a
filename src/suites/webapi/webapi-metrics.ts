/**
 * The twenty metrics of WAPIIBench's Table V over a set of samples, each as a ratio over all samples
 * (t) and over executable ones (e), following the reference's `evaluate`:
 * - sample/URL/method ratios divide counts by #samples (t) or #executable samples (e);
 * - argument ratios pool counts: names, values and missing over expected arguments; unexpected,
 *   unnecessary and illegal over all arguments (t includes the non-executable samples' expected
 *   arguments, all missing);
 * - "mean" metrics average per-sample ratios over the samples where the ratio is defined (precision:
 *   retrieved >= 1; recall: expected >= 1; Jaccard: any argument; value conditional accuracy: >= 1
 *   correct name). Their (t) variant also counts each non-executable sample that expected arguments
 *   as a 0 — exactly the reference's (t) for recall and Jaccard; the reference's precision and
 *   conditional accuracy have no distinct (t), and the paper's tables show one, so this rule is ours.
 * Only the `all` location is reported. Empty denominators give 0. "Incomplete implementations" counts
 * incomplete calls only (the reference's `errors_incomplete_request`, the row of the paper's tables).
 */
import type { LocationCounts, SampleStatistics } from './sample-statistics.ts';

export type WebapiMetricName =
  | 'executable' | 'correctImplementations' | 'illegalImplementations' | 'correctUrls' | 'illegalUrls' | 'correctMethods'
  | 'illegalMethods' | 'correctArgumentNames' | 'correctArgumentValues' | 'missingArguments' | 'unexpectedArguments'
  | 'unnecessaryArguments' | 'illegalArguments' | 'meanArgumentPrecision' | 'meanArgumentRecall' | 'meanArgumentJaccard'
  | 'meanArgumentValueConditionalAccuracy' | 'totalErrors' | 'incompleteImplementations' | 'runtimeErrors';

/** Table V in the paper's order, with the label it uses and whether it has (t)/(e) variants or is a count. */
export const tableVMetrics: readonly { name: WebapiMetricName; label: string; kind: 'ratio' | 'executable-share' | 'count' }[] = [
  { name: 'executable', label: 'Executable implementations', kind: 'executable-share' },
  { name: 'correctImplementations', label: 'Correct implementations', kind: 'ratio' },
  { name: 'illegalImplementations', label: 'Illegal implementations', kind: 'ratio' },
  { name: 'correctUrls', label: 'Correct URLs', kind: 'ratio' },
  { name: 'illegalUrls', label: 'Illegal URLs', kind: 'ratio' },
  { name: 'correctMethods', label: 'Correct methods', kind: 'ratio' },
  { name: 'illegalMethods', label: 'Illegal methods', kind: 'ratio' },
  { name: 'correctArgumentNames', label: 'Correct argument names', kind: 'ratio' },
  { name: 'correctArgumentValues', label: 'Correct argument values', kind: 'ratio' },
  { name: 'missingArguments', label: 'Missing arguments', kind: 'ratio' },
  { name: 'unexpectedArguments', label: 'Unexpected arguments', kind: 'ratio' },
  { name: 'unnecessaryArguments', label: 'Unnecessary arguments', kind: 'ratio' },
  { name: 'illegalArguments', label: 'Illegal arguments', kind: 'ratio' },
  { name: 'meanArgumentPrecision', label: 'Mean argument precision', kind: 'ratio' },
  { name: 'meanArgumentRecall', label: 'Mean argument recall', kind: 'ratio' },
  { name: 'meanArgumentJaccard', label: 'Mean argument Jaccard index', kind: 'ratio' },
  { name: 'meanArgumentValueConditionalAccuracy', label: 'Mean argument value conditional accuracy', kind: 'ratio' },
  { name: 'totalErrors', label: 'Total errors', kind: 'count' },
  { name: 'incompleteImplementations', label: 'Incomplete implementations', kind: 'count' },
  { name: 'runtimeErrors', label: 'Runtime errors', kind: 'count' },
];

export const executableSuffix = 'Executable';

function divide(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}

function has(counts: LocationCounts): boolean {
  return counts.all !== undefined;
}

/** Metrics by camelCase name: `<name>` is (t), `<name>Executable` is (e); counts have no (e) variant. */
export function computeWebapiMetrics(samples: readonly SampleStatistics[]): Record<string, number> {
  const total = samples.length;
  const executableSamples = samples.filter((sample) => sample.errorVerdict === null);
  const nonexecutableSamples = samples.filter((sample) => sample.errorVerdict !== null);
  const executable = executableSamples.length;
  const count = (predicate: (sample: SampleStatistics) => boolean) => samples.filter(predicate).length;
  const sum = (list: readonly SampleStatistics[], pick: (sample: SampleStatistics) => number) => list.reduce((accumulator, sample) => accumulator + pick(sample), 0);
  const all = (name: keyof SampleStatistics['counts']) => (sample: SampleStatistics) => sample.counts[name].all ?? 0;

  const metrics: Record<string, number> = {};
  const ratio = (name: WebapiMetricName, numerator: number, totalDenominator: number, executableDenominator: number, executableNumerator = numerator) => {
    metrics[name] = divide(numerator, totalDenominator);
    metrics[`${name}${executableSuffix}`] = divide(executableNumerator, executableDenominator);
  };

  metrics.executable = divide(executable, total);
  const sampleRatio = (name: WebapiMetricName, predicate: (sample: SampleStatistics) => boolean) => ratio(name, count(predicate), total, executable);
  sampleRatio('correctImplementations', (sample) => sample.sampleVerdict === 'correct');
  sampleRatio('illegalImplementations', (sample) => sample.sampleVerdict === 'illegal');
  sampleRatio('correctUrls', (sample) => sample.urlVerdict === 'correct');
  sampleRatio('illegalUrls', (sample) => sample.urlVerdict === 'illegal');
  sampleRatio('correctMethods', (sample) => sample.methodVerdict === 'correct');
  sampleRatio('illegalMethods', (sample) => sample.methodVerdict === 'illegal');

  const expectedTotal = sum(samples, all('expected'));
  const expectedExecutable = sum(executableSamples, all('expected'));
  const allTotal = sum(samples, all('all'));
  const allExecutable = sum(executableSamples, all('all'));
  const correctName = sum(executableSamples, all('correctName'));
  const correctValue = sum(executableSamples, all('correctValue'));
  const unexpected = sum(executableSamples, all('unexpected'));
  ratio('correctArgumentNames', correctName, expectedTotal, expectedExecutable);
  ratio('correctArgumentValues', correctValue, expectedTotal, expectedExecutable);
  ratio('missingArguments', sum(samples, all('missing')), expectedTotal, expectedExecutable, sum(executableSamples, all('missing')));
  ratio('unexpectedArguments', unexpected, allTotal, allExecutable);
  ratio('unnecessaryArguments', sum(executableSamples, all('unnecessary')), allTotal, allExecutable);
  ratio('illegalArguments', sum(executableSamples, all('illegal')), allTotal, allExecutable);

  // Non-executable samples that expected arguments count as a 0 in every (t) mean.
  const failedWithExpected = nonexecutableSamples.filter((sample) => has(sample.counts.expected)).length;
  const mean = (name: WebapiMetricName, defined: (sample: SampleStatistics) => boolean, value: (sample: SampleStatistics) => number) => {
    const definedSamples = executableSamples.filter(defined);
    const aggregate = sum(definedSamples, value);
    ratio(name, aggregate, definedSamples.length + failedWithExpected, definedSamples.length);
  };
  const retrieved = (sample: SampleStatistics) => (sample.counts.correctName.all ?? 0) + (sample.counts.unexpected.all ?? 0);
  mean('meanArgumentPrecision', (sample) => retrieved(sample) > 0, (sample) => divide(sample.counts.correctName.all ?? 0, retrieved(sample)));
  mean('meanArgumentRecall', (sample) => has(sample.counts.expected), (sample) => divide(sample.counts.correctName.all ?? 0, sample.counts.expected.all ?? 0));
  mean('meanArgumentJaccard', (sample) => has(sample.counts.all), (sample) => divide(sample.counts.correctName.all ?? 0, sample.counts.all.all ?? 0));
  mean('meanArgumentValueConditionalAccuracy', (sample) => has(sample.counts.correctName), (sample) => divide(sample.counts.correctValue.all ?? 0, sample.counts.correctName.all ?? 0));

  metrics.totalErrors = nonexecutableSamples.length;
  metrics.runtimeErrors = count((sample) => sample.errorVerdict === 'runtime_error');
  // The paper's row is the reference's `errors_incomplete_request`; a no-request output counts in totalErrors only.
  metrics.incompleteImplementations = count((sample) => sample.errorVerdict === 'incomplete_request');
  return metrics;
}

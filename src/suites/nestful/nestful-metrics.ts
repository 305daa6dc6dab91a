/**
 * Dataset-level NESTFUL metrics from per-sample evaluations, as the official scorer computes them:
 * F1 for function names and for parameters are macro averages over a label vocabulary fitted on the
 * gold rows only (sklearn MultiLabelBinarizer: predicted labels outside it are dropped, duplicates in a
 * row collapse; per-label F1 with zero division -> 0); partial accuracy is the mean; full accuracy the
 * share of samples with partial accuracy 1; win rate counts executable samples only. Win rate is also
 * broken down by maximum nesting depth, number of data dependencies and nesting pattern (paper 4.5).
 */
import type { ReportTable } from '../spec.ts';
import type { SampleEvaluation } from './evaluate-sample.ts';

export type Breakdown = { key: string; tasks: number; wins: number; winRate: number }[];

export type NestfulMetrics = {
  samples: number;
  f1Function: number;
  f1Parameter: number;
  partialAccuracy: number;
  fullAccuracy: number;
  /** Wins over executable samples (0 when none is executable). */
  winRate: number;
  executableTasks: number;
  unparsable: number;
  winRateByDepth: Breakdown;
  winRateByDependencies: Breakdown;
  winRateByPattern: Breakdown;
};

type LabelCounts = { truePositives: number; falsePositives: number; falseNegatives: number };

/**
 * Macro F1 over the gold vocabulary, one row at a time: labels enter the vocabulary in the order gold rows first
 * name them (the order the F1s are summed in), and a predicted label not yet in it keeps its false positives aside
 * until a gold row names it. The same figure as a second pass over every row, without keeping the rows.
 */
export function createMacroF1(): { add(predicted: readonly string[], gold: readonly string[]): void; value(): number } {
  const vocabulary = new Map<string, LabelCounts>();
  const outsideFalsePositives = new Map<string, number>();
  return {
    add(predicted, gold) {
      const goldSet = new Set(gold);
      const predictedSet = new Set(predicted);
      for (const label of goldSet) {
        let count = vocabulary.get(label);
        if (!count) {
          count = { truePositives: 0, falsePositives: outsideFalsePositives.get(label) ?? 0, falseNegatives: 0 };
          outsideFalsePositives.delete(label);
          vocabulary.set(label, count);
        }
        if (predictedSet.has(label)) count.truePositives += 1;
        else count.falseNegatives += 1;
      }
      for (const label of predictedSet) {
        if (goldSet.has(label)) continue;
        const count = vocabulary.get(label);
        if (count) count.falsePositives += 1;
        else outsideFalsePositives.set(label, (outsideFalsePositives.get(label) ?? 0) + 1);
      }
    },
    value() {
      if (vocabulary.size === 0) return 0;
      let sum = 0;
      for (const { truePositives, falsePositives, falseNegatives } of vocabulary.values()) {
        const denominator = 2 * truePositives + falsePositives + falseNegatives;
        sum += denominator === 0 ? 0 : (2 * truePositives) / denominator;
      }
      return sum / vocabulary.size;
    },
  };
}

/** Macro F1 over the gold vocabulary, rows given as (predicted labels, gold labels). */
export function macroF1(rows: Iterable<readonly [readonly string[], readonly string[]]>): number {
  const f1 = createMacroF1();
  for (const [predicted, gold] of rows) f1.add(predicted, gold);
  return f1.value();
}

/** Wins over executable samples by a key, in the order keys first appear. */
function createBreakdown(keyOf: (evaluation: SampleEvaluation) => string): { add(evaluation: SampleEvaluation): void; rows(order: (left: string, right: string) => number): Breakdown } {
  const groups = new Map<string, { tasks: number; wins: number }>();
  return {
    add(evaluation) {
      if (!evaluation.executable) return;
      const key = keyOf(evaluation);
      const group = groups.get(key) ?? { tasks: 0, wins: 0 };
      group.tasks += 1;
      if (evaluation.win) group.wins += 1;
      groups.set(key, group);
    },
    rows: (order) => [...groups.entries()].sort(([left], [right]) => order(left, right))
      .map(([key, { tasks, wins }]) => ({ key, tasks, wins, winRate: wins / tasks })),
  };
}

const numericOrder = (left: string, right: string): number => Number(left) - Number(right);

/** The dataset metrics in one pass over the evaluations (read from the store page by page; none is kept). */
export function aggregateEvaluations(evaluations: Iterable<SampleEvaluation>): NestfulMetrics {
  let samples = 0;
  let partialSum = 0;
  let fullMatches = 0;
  let executableTasks = 0;
  let wins = 0;
  let unparsable = 0;
  const f1Function = createMacroF1();
  const f1Parameter = createMacroF1();
  const byDepth = createBreakdown((evaluation) => String(evaluation.depth));
  const byDependencies = createBreakdown((evaluation) => String(evaluation.dependencies));
  const byPattern = createBreakdown((evaluation) => evaluation.pattern);
  for (const evaluation of evaluations) {
    samples += 1;
    f1Function.add(evaluation.predictedNames, evaluation.goldNames);
    for (const [predicted, gold] of evaluation.parameterRows) f1Parameter.add(predicted, gold);
    partialSum += evaluation.partialAccuracy;
    if (evaluation.fullMatch) fullMatches += 1;
    if (evaluation.executable) {
      executableTasks += 1;
      if (evaluation.win) wins += 1;
    }
    if (!evaluation.parsed) unparsable += 1;
    byDepth.add(evaluation);
    byDependencies.add(evaluation);
    byPattern.add(evaluation);
  }
  const patternRows = byPattern.rows(() => 0);
  const patternTasks = new Map(patternRows.map((row) => [row.key, row.tasks]));
  return {
    samples,
    f1Function: f1Function.value(),
    f1Parameter: f1Parameter.value(),
    partialAccuracy: samples === 0 ? 0 : partialSum / samples,
    fullAccuracy: samples === 0 ? 0 : fullMatches / samples,
    winRate: executableTasks === 0 ? 0 : wins / executableTasks,
    executableTasks,
    unparsable,
    winRateByDepth: byDepth.rows(numericOrder),
    winRateByDependencies: byDependencies.rows(numericOrder),
    // Most common patterns first, as the paper's figure shows the common ones.
    winRateByPattern: byPattern.rows((left, right) => (patternTasks.get(right) ?? 0) - (patternTasks.get(left) ?? 0) || left.localeCompare(right)),
  };
}

/** Flat `run --json` metric keys: the five paper metrics, executableTasks, and `winRateBy<Kind>.<key>`. */
export function flattenMetrics(metrics: NestfulMetrics): Record<string, number> {
  const flat: Record<string, number> = {
    f1Function: metrics.f1Function,
    f1Parameter: metrics.f1Parameter,
    partialAccuracy: metrics.partialAccuracy,
    fullAccuracy: metrics.fullAccuracy,
    executableTasks: metrics.executableTasks,
    nonExecutableTasks: metrics.samples - metrics.executableTasks,
    unparsable: metrics.unparsable,
  };
  // With no executable sample a win rate is undefined: leave it out rather than report a false 0.
  if (metrics.executableTasks > 0) flat.winRate = metrics.winRate;
  for (const row of metrics.winRateByDepth) flat[`winRateByDepth.${row.key}`] = row.winRate;
  for (const row of metrics.winRateByDependencies) flat[`winRateByDependencies.${row.key}`] = row.winRate;
  for (const row of metrics.winRateByPattern) flat[`winRateByPattern.${row.key}`] = row.winRate;
  return flat;
}

export function metricsTables(metrics: NestfulMetrics): ReportTable[] {
  const round = (value: number): number => Math.round(value * 1000) / 1000;
  const table = (title: string, column: string, rows: Breakdown): ReportTable => ({
    title, columns: [column, 'tasks', 'wins', 'win rate'], rows: rows.map((row) => [row.key, row.tasks, row.wins, round(row.winRate)]),
  });
  return [
    {
      title: 'NESTFUL metrics (Table 1)',
      columns: ['F1 Func.', 'F1 Param.', 'Part. Acc.', 'Full Acc.', 'Win Rate', 'executable', 'samples'],
      rows: [[round(metrics.f1Function), round(metrics.f1Parameter), round(metrics.partialAccuracy), round(metrics.fullAccuracy),
        metrics.executableTasks > 0 ? round(metrics.winRate) : null, metrics.executableTasks, metrics.samples]],
    },
    table('Win rate by maximum nesting depth (Fig. 6a)', 'depth', metrics.winRateByDepth),
    table('Win rate by number of data dependencies (Fig. 6b)', 'dependencies', metrics.winRateByDependencies),
    table('Win rate by nesting pattern (Fig. 6c)', 'pattern', metrics.winRateByPattern.slice(0, 15)),
  ];
}

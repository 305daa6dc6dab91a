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

/** Macro F1 over the gold vocabulary, rows given as (predicted labels, gold labels). */
export function macroF1(rows: readonly (readonly [readonly string[], readonly string[]])[]): number {
  const counts = new Map<string, { truePositives: number; falsePositives: number; falseNegatives: number }>();
  for (const [, gold] of rows) for (const label of gold) if (!counts.has(label)) counts.set(label, { truePositives: 0, falsePositives: 0, falseNegatives: 0 });
  if (counts.size === 0) return 0;
  for (const [predicted, gold] of rows) {
    const goldSet = new Set(gold);
    const predictedSet = new Set(predicted);
    for (const label of goldSet) {
      const count = counts.get(label);
      if (!count) continue;
      if (predictedSet.has(label)) count.truePositives += 1;
      else count.falseNegatives += 1;
    }
    for (const label of predictedSet) {
      if (goldSet.has(label)) continue;
      const count = counts.get(label);
      if (count) count.falsePositives += 1;
    }
  }
  let sum = 0;
  for (const { truePositives, falsePositives, falseNegatives } of counts.values()) {
    const denominator = 2 * truePositives + falsePositives + falseNegatives;
    sum += denominator === 0 ? 0 : (2 * truePositives) / denominator;
  }
  return sum / counts.size;
}

function breakdown(evaluations: readonly SampleEvaluation[], keyOf: (evaluation: SampleEvaluation) => string, order: (left: string, right: string) => number): Breakdown {
  const groups = new Map<string, { tasks: number; wins: number }>();
  for (const evaluation of evaluations) {
    if (!evaluation.executable) continue;
    const key = keyOf(evaluation);
    const group = groups.get(key) ?? { tasks: 0, wins: 0 };
    group.tasks += 1;
    if (evaluation.win) group.wins += 1;
    groups.set(key, group);
  }
  return [...groups.entries()].sort(([left], [right]) => order(left, right))
    .map(([key, { tasks, wins }]) => ({ key, tasks, wins, winRate: wins / tasks }));
}

const numericOrder = (left: string, right: string): number => Number(left) - Number(right);

export function aggregateEvaluations(evaluations: readonly SampleEvaluation[]): NestfulMetrics {
  const samples = evaluations.length;
  const executable = evaluations.filter((evaluation) => evaluation.executable);
  const wins = executable.filter((evaluation) => evaluation.win).length;
  const patternTasks = new Map<string, number>();
  for (const evaluation of executable) patternTasks.set(evaluation.pattern, (patternTasks.get(evaluation.pattern) ?? 0) + 1);
  return {
    samples,
    f1Function: macroF1(evaluations.map((evaluation) => [evaluation.predictedNames, evaluation.goldNames] as const)),
    f1Parameter: macroF1(evaluations.flatMap((evaluation) => evaluation.parameterRows)),
    partialAccuracy: samples === 0 ? 0 : evaluations.reduce((sum, evaluation) => sum + evaluation.partialAccuracy, 0) / samples,
    fullAccuracy: samples === 0 ? 0 : evaluations.filter((evaluation) => evaluation.fullMatch).length / samples,
    winRate: executable.length === 0 ? 0 : wins / executable.length,
    executableTasks: executable.length,
    unparsable: evaluations.filter((evaluation) => !evaluation.parsed).length,
    winRateByDepth: breakdown(evaluations, (evaluation) => String(evaluation.depth), numericOrder),
    winRateByDependencies: breakdown(evaluations, (evaluation) => String(evaluation.dependencies), numericOrder),
    // Most common patterns first, as the paper's figure shows the common ones.
    winRateByPattern: breakdown(evaluations, (evaluation) => evaluation.pattern,
      (left, right) => (patternTasks.get(right) ?? 0) - (patternTasks.get(left) ?? 0) || left.localeCompare(right)),
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

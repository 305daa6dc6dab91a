import type { FailureCode } from '../core/failure.ts';
import type { Mode } from '../core/mode.ts';
import { failureBreakdown } from '../metrics/failure-breakdown.ts';
import { meanAndDeviation } from '../metrics/mean-and-deviation.ts';
import { meanPassAtK, meanPassHatK } from '../metrics/pass-at-k.ts';
import { wilsonInterval } from '../metrics/wilson-interval.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { RunStatus } from '../store/stored-run.ts';
import { listSuites } from '../suites/registry.ts';
import type { ReportTable, Suite } from '../suites/spec.ts';
import { storedScoredEpisodes } from './stored-scored-episodes.ts';

export type RunSummary = {
  runId: string;
  /** Suite id. */
  suite: string;
  suiteVersion: string;
  model: string;
  /** The mode every task ran in, or 'mixed' when tasks defaulted to different modes. */
  mode: Mode | 'mixed';
  status: RunStatus;
  createdAt: string;
  tasks: number;
  trials: number;
  /** Scored episodes: the denominator of every rate. */
  episodes: number;
  passed: number;
  infrastructureErrors: number;
  /** tasks x trials minus every recorded episode (a killed or cancelled run has some). */
  missingEpisodes: number;
  passRate: number;
  passRateCI95: [number, number];
  /**
   * meanScore and scoreStandardDeviation (over scored episodes); with trials > 1 also passAt<k>
   * and passHat<k> for k = 1..trials; then the suite's own metrics.
   */
  metrics: Record<string, number>;
  /** Scored failed episodes by their main failure code (every code present). */
  failures: Record<FailureCode, number>;
  /** Retries by cause (error code), over every stored episode: retried model requests and episode restarts. */
  retries: Record<string, number>;
  tables: ReportTable[];
  /**
   * Present only for a run stopped while its tasks were still being stored (`tasks` counts those stored): `resumable`
   * when `run --resume` stores the rest (a registered suite's own tasks, made again from the run's recipe), else
   * `start-again` (tasks from a file or transforms: resume refuses it).
   */
  tasksIncomplete?: 'resumable' | 'start-again';
};

/**
 * Recomputes a run's figures from the store (so a report never depends on the process that ran it).
 * Infrastructure errors are left out of every rate. `suite` defaults to the registered suite of the
 * run's id; without one (e.g. an imported run of a suite this install lacks) suite metrics are omitted.
 * Bounded memory: episodes are read from the store a page at a time (the suite's summary iterates them the same
 * way), task facts come from SQL, and only small per-episode numbers and per-task counts are kept.
 */
export function summarizeRun(store: ResultsStore, runId: string, suite?: Suite): RunSummary {
  const run = store.getRun(runId);
  const suiteForMetrics = suite ?? listSuites().find((candidate) => candidate.id === run.suite.id);
  const taskFacts = store.taskFacts(runId);
  const scored = storedScoredEpisodes(store, runId);
  // The runner's own figures in one pass, in task order then trial (the order sums were always taken in).
  let scoredCount = 0;
  let passed = 0;
  const values: number[] = [];
  const failures = failureBreakdown([]);
  // Per-task counts only feed pass@k / pass^k: a one-trial run keeps none (100,000 tasks, 100,000 entries).
  const perTask = run.trials > 1 ? new Map<number, { total: number; passed: number }>() : undefined;
  for (const { ordinal, outcome } of store.iterateEpisodeOutcomes(runId, { status: 'scored' })) {
    const score = outcome.score;
    if (score === null) continue;
    scoredCount += 1;
    if (score.passed) passed += 1;
    else failures[score.failure ?? 'result.wrong'] += 1;
    values.push(score.value);
    if (perTask === undefined) continue;
    const counts = perTask.get(ordinal) ?? { total: 0, passed: 0 };
    counts.total += 1;
    if (score.passed) counts.passed += 1;
    perTask.set(ordinal, counts);
  }
  const meanScore = meanAndDeviation(values);
  const suiteSummary = suiteForMetrics?.summarize(scored);
  const metrics: Record<string, number> = { ...suiteSummary?.metrics };
  // The runner's definitions win a name clash: these names mean the same thing in every suite.
  metrics.meanScore = meanScore.mean;
  metrics.scoreStandardDeviation = meanScore.standardDeviation;
  if (perTask !== undefined) Object.assign(metrics, repeatedTrialMetrics([...perTask.values()], run.trials));
  // Model-written phrasing that lost a value of the task falls back to the template; how often says how far to
  // trust the phrasing model (suites mark each phrased task's stats.phrasing).
  if (taskFacts.phrased > 0) metrics.phrasingFallbacks = taskFacts.phrasingFallbacks;
  const modesUsed = new Set(taskFacts.firstModes.map((mode) => run.mode ?? (mode as Mode)));
  const stored = store.countEpisodes(runId);
  return {
    runId: run.id,
    suite: run.suite.id,
    suiteVersion: run.suite.version,
    model: run.model,
    mode: modesUsed.size === 1 ? [...modesUsed][0] : (run.mode ?? 'mixed'),
    status: run.status,
    createdAt: run.createdAt,
    tasks: taskFacts.count,
    trials: run.trials,
    episodes: scoredCount,
    passed,
    infrastructureErrors: stored['infrastructure-error'],
    missingEpisodes: taskFacts.count * run.trials - (stored.scored + stored['infrastructure-error'] + stored.cancelled),
    passRate: scoredCount === 0 ? 0 : passed / scoredCount,
    passRateCI95: wilsonInterval(passed, scoredCount),
    metrics,
    failures,
    retries: store.countRetries(runId),
    tables: suiteSummary?.tables ?? [],
    ...(store.hasAllTasks(runId) ? {} : { tasksIncomplete: run.provenance.taskRecipe ? 'resumable' as const : 'start-again' as const }),
  };
}

/** pass@k and pass^k per task (over its scored trials), averaged over tasks with at least k of them. */
function repeatedTrialMetrics(counts: readonly { total: number; passed: number }[], trials: number): Record<string, number> {
  const metrics: Record<string, number> = {};
  for (let k = 1; k <= trials; k += 1) {
    const passAt = meanPassAtK(counts, k);
    const passHat = meanPassHatK(counts, k);
    if (passAt !== undefined) metrics[`passAt${k}`] = passAt;
    if (passHat !== undefined) metrics[`passHat${k}`] = passHat;
  }
  return metrics;
}

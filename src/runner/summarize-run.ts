import type { FailureCode } from '../core/failure.ts';
import type { Mode } from '../core/mode.ts';
import type { Score } from '../core/score.ts';
import { failureBreakdown } from '../metrics/failure-breakdown.ts';
import { meanAndDeviation } from '../metrics/mean-and-deviation.ts';
import { meanPassAtK, meanPassHatK } from '../metrics/pass-at-k.ts';
import { wilsonInterval } from '../metrics/wilson-interval.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { RunStatus } from '../store/stored-run.ts';
import { listSuites } from '../suites/registry.ts';
import type { ReportTable, Suite } from '../suites/spec.ts';
import { storedScoredEpisodes } from './stored-scored-episodes.ts';
import type { TasksIncomplete } from '../report/run-report.ts';

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
  tasksIncomplete?: TasksIncomplete;
};

/**
 * Recomputes a run's figures from the store (so a report never depends on the process that ran it).
 * Infrastructure errors are left out of every rate. `suite` defaults to the registered suite of the
 * run's id; without one (e.g. an imported run of a suite this install lacks) suite metrics are omitted.
 * Bounded memory: episodes are read from the store a page at a time (the suite's summary iterates them the same
 * way), task facts come from SQL, and only small per-episode numbers and per-task counts are kept.
 */
type RunnerTally = {
  scoredCount: number;
  passed: number;
  values: number[];
  failures: Record<FailureCode, number>;
  /** Per-task counts only feed pass@k / pass^k: a one-trial run keeps none (100,000 tasks, 100,000 entries). */
  perTask: Map<number, { total: number; passed: number }> | undefined;
  add(ordinal: number, score: Score): void;
};

function runnerTally(trials: number): RunnerTally {
  const tally: RunnerTally = {
    scoredCount: 0, passed: 0, values: [], failures: failureBreakdown([]), perTask: trials > 1 ? new Map() : undefined,
    add(ordinal, score) {
      tally.scoredCount += 1;
      if (score.passed) tally.passed += 1;
      else tally.failures[score.failure ?? 'result.wrong'] += 1;
      tally.values.push(score.value);
      if (tally.perTask === undefined) return;
      const counts = tally.perTask.get(ordinal) ?? { total: 0, passed: 0 };
      counts.total += 1;
      if (score.passed) counts.passed += 1;
      tally.perTask.set(ordinal, counts);
    },
  };
  return tally;
}

export function summarizeRun(store: ResultsStore, runId: string, suite?: Suite): RunSummary {
  const run = store.getRun(runId);
  const suiteForMetrics = suite ?? listSuites().find((candidate) => candidate.id === run.suite.id);
  const taskFacts = store.taskFacts(runId);
  // The runner's own figures, in task order then trial (the order sums were always taken in): counted while the suite's
  // summary reads the episodes, or in a pass of their own when it read them only in part (or there is no suite).
  let tally = runnerTally(run.trials);
  let tallied = false;
  const scored = storedScoredEpisodes(store, runId, { episode: (ordinal, score) => tally.add(ordinal, score), completed: () => { tallied = true; } });
  const suiteSummary = suiteForMetrics?.summarize(scored);
  if (!tallied) {
    tally = runnerTally(run.trials);
    for (const { ordinal, score } of store.iterateScores(runId)) tally.add(ordinal, score);
  }
  const { scoredCount, passed, values, failures, perTask } = tally;
  const meanScore = meanAndDeviation(values);
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
    ...(store.hasAllTasks(runId) ? {} : { tasksIncomplete: run.provenance.taskRecipe || run.provenance.tasksFile ? 'resumable' as const : 'start-again' as const }),
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

import type { FailureCode } from '../core/failure.ts';
import type { Mode } from '../core/mode.ts';
import type { Task } from '../core/task.ts';
import { failureBreakdown } from '../metrics/failure-breakdown.ts';
import { meanAndDeviation } from '../metrics/mean-and-deviation.ts';
import { meanPassAtK, meanPassHatK } from '../metrics/pass-at-k.ts';
import { wilsonInterval } from '../metrics/wilson-interval.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { RunStatus } from '../store/stored-run.ts';
import { listSuites } from '../suites/registry.ts';
import { episodeMode } from './episode-mode.ts';
import type { ReportTable, ScoredEpisode, Suite } from '../suites/spec.ts';

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
};

/**
 * Recomputes a run's figures from the store (so a report never depends on the process that ran it).
 * Infrastructure errors are left out of every rate. `suite` defaults to the registered suite of the
 * run's id; without one (e.g. an imported run of a suite this install lacks) suite metrics are omitted.
 */
export function summarizeRun(store: ResultsStore, runId: string, suite?: Suite, runTasks?: readonly Task[]): RunSummary {
  const run = store.getRun(runId);
  const suiteForMetrics = suite ?? listSuites().find((candidate) => candidate.id === run.suite.id);
  // The caller that ran the tasks passes them (they are the run's stored tasks): no second copy is parsed.
  const tasks = runTasks ?? store.listTasks(runId);
  const tasksById = new Map<string, Task>(tasks.map((task) => [task.id, task]));
  const episodes = store.listEpisodeOutcomes(runId);
  const scored: ScoredEpisode[] = [];
  for (const episode of episodes) {
    const task = tasksById.get(episode.taskId);
    if (episode.status === 'scored' && episode.score && task) scored.push({ task, trial: episode.trial, score: episode.score });
  }
  const passed = scored.filter((episode) => episode.score.passed).length;
  const values = meanAndDeviation(scored.map((episode) => episode.score.value));
  const suiteSummary = suiteForMetrics?.summarize(scored);
  const metrics: Record<string, number> = { ...suiteSummary?.metrics };
  // The runner's definitions win a name clash: these names mean the same thing in every suite.
  metrics.meanScore = values.mean;
  metrics.scoreStandardDeviation = values.standardDeviation;
  if (run.trials > 1) Object.assign(metrics, repeatedTrialMetrics(scored, run.trials));
  // Model-written phrasing that lost a value of the task falls back to the template; how often says how far to
  // trust the phrasing model (suites mark each phrased task's stats.phrasing).
  const phrased = tasks.filter((task) => task.stats.phrasing === 'model' || task.stats.phrasing === 'template-fallback');
  if (phrased.length > 0) metrics.phrasingFallbacks = phrased.filter((task) => task.stats.phrasing === 'template-fallback').length;
  const modesUsed = new Set(tasks.map((task) => episodeMode(run.mode, task)));
  return {
    runId: run.id,
    suite: run.suite.id,
    suiteVersion: run.suite.version,
    model: run.model,
    mode: modesUsed.size === 1 ? [...modesUsed][0] : (run.mode ?? 'mixed'),
    status: run.status,
    createdAt: run.createdAt,
    tasks: tasks.length,
    trials: run.trials,
    episodes: scored.length,
    passed,
    infrastructureErrors: episodes.filter((episode) => episode.status === 'infrastructure-error').length,
    missingEpisodes: tasks.length * run.trials - episodes.length,
    passRate: scored.length === 0 ? 0 : passed / scored.length,
    passRateCI95: wilsonInterval(passed, scored.length),
    metrics,
    failures: failureBreakdown(scored.map((episode) => episode.score)),
    retries: store.countRetries(runId),
    tables: suiteSummary?.tables ?? [],
  };
}

/** pass@k and pass^k per task (over its scored trials), averaged over tasks with at least k of them. */
function repeatedTrialMetrics(scored: readonly ScoredEpisode[], trials: number): Record<string, number> {
  const perTask = new Map<string, { total: number; passed: number }>();
  for (const episode of scored) {
    const counts = perTask.get(episode.task.id) ?? { total: 0, passed: 0 };
    counts.total += 1;
    if (episode.score.passed) counts.passed += 1;
    perTask.set(episode.task.id, counts);
  }
  const counts = [...perTask.values()];
  const metrics: Record<string, number> = {};
  for (let k = 1; k <= trials; k += 1) {
    const passAt = meanPassAtK(counts, k);
    const passHat = meanPassHatK(counts, k);
    if (passAt !== undefined) metrics[`passAt${k}`] = passAt;
    if (passHat !== undefined) metrics[`passHat${k}`] = passHat;
  }
  return metrics;
}

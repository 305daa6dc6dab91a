import type { EpisodeOutcome } from '../store/episode-query.ts';

/** One task's results over its trials, for the per-task table. */
export type TaskResult = {
  taskId: string;
  /** Trials that were judged (infrastructure errors and cancellations excluded). */
  scored: number;
  passed: number;
  /** Mean score value over scored trials; null when none was scored. */
  meanScore: number | null;
  /** Failure codes of the failed trials, most frequent first (ties by code). */
  failures: string[];
  infrastructureErrors: number;
};

/** A task's running counts: what is kept per task while the episodes stream past, never the episodes. */
type TaskTally = { scored: number; passed: number; scoreSum: number; failureCounts: Map<string, number>; infrastructureErrors: number };

/**
 * Groups episodes by task, in task id order, so reports list tasks the same way every time. One pass; each task's
 * score sum adds its trials in the order they come (a stored run's: trial order), as a sum over the group would.
 */
export function taskResults(episodes: Iterable<EpisodeOutcome>): TaskResult[] {
  const byTask = new Map<string, TaskTally>();
  for (const episode of episodes) {
    let tally = byTask.get(episode.taskId);
    if (!tally) {
      tally = { scored: 0, passed: 0, scoreSum: 0, failureCounts: new Map(), infrastructureErrors: 0 };
      byTask.set(episode.taskId, tally);
    }
    if (episode.status === 'infrastructure-error') tally.infrastructureErrors += 1;
    const score = episode.status === 'scored' ? episode.score : null;
    if (!score) continue;
    tally.scored += 1;
    tally.scoreSum += score.value;
    if (score.passed) tally.passed += 1;
    else {
      const code = score.failure ?? 'result.wrong';
      tally.failureCounts.set(code, (tally.failureCounts.get(code) ?? 0) + 1);
    }
  }
  return [...byTask.keys()].sort().map((taskId) => {
    const tally = byTask.get(taskId) as TaskTally;
    const failures = [...tally.failureCounts.entries()]
      .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
      .map(([code]) => code);
    return {
      taskId,
      scored: tally.scored,
      passed: tally.passed,
      meanScore: tally.scored === 0 ? null : tally.scoreSum / tally.scored,
      failures,
      infrastructureErrors: tally.infrastructureErrors,
    };
  });
}

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

/** Groups episodes by task, in task id order, so reports list tasks the same way every time. */
export function taskResults(episodes: readonly EpisodeOutcome[]): TaskResult[] {
  const byTask = new Map<string, EpisodeOutcome[]>();
  for (const episode of episodes) {
    const group = byTask.get(episode.taskId) ?? [];
    group.push(episode);
    byTask.set(episode.taskId, group);
  }
  return [...byTask.keys()].sort().map((taskId) => {
    const group = byTask.get(taskId) ?? [];
    const scores = group.flatMap((episode) => (episode.status === 'scored' && episode.score ? [episode.score] : []));
    const failureCounts = new Map<string, number>();
    for (const score of scores) {
      if (score.passed) continue;
      const code = score.failure ?? 'result.wrong';
      failureCounts.set(code, (failureCounts.get(code) ?? 0) + 1);
    }
    const failures = [...failureCounts.entries()]
      .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
      .map(([code]) => code);
    return {
      taskId,
      scored: scores.length,
      passed: scores.filter((score) => score.passed).length,
      meanScore: scores.length === 0 ? null : scores.reduce((sum, score) => sum + score.value, 0) / scores.length,
      failures,
      infrastructureErrors: group.filter((episode) => episode.status === 'infrastructure-error').length,
    };
  });
}

/**
 * A run's episodes as a report reads them: any iterable of outcomes (a hand-built report's array), or a stored run's,
 * read from the store a page at a time on every pass, so reporting 100,000 episodes holds one page and small per-task
 * records. A stored source also answers in the CSV's order and gives sorted durations by rank (SQL), which an array
 * answers by sorting itself.
 */
import type { SortedValues } from '../metrics/percentile.ts';
import { sortedValuesOf } from '../metrics/percentile.ts';
import type { EpisodeOutcome } from '../store/episode-query.ts';
import type { ResultsStore } from '../store/results-store.ts';

export type ReportEpisodes = Iterable<EpisodeOutcome> & {
  /** The episodes by task id (localeCompare), then trial. */
  inTaskIdOrder?(): Iterable<EpisodeOutcome>;
  /** The scored episodes' durations, ascending. */
  scoredDurations?(): SortedValues;
  /** Tokens over every episode (a stored run's summed by SQL). */
  usageTotals?(): { inputTokens: number; outputTokens: number };
};

/** Episodes per read when a report wants them by task id: whole tasks at a time, about this many episodes. */
const episodesPerRead = 1000;

/** A stored run's episodes (of its stored tasks), read again from the store on each pass. */
export function storedReportEpisodes(store: ResultsStore, runId: string): ReportEpisodes {
  return {
    *[Symbol.iterator]() {
      for (const { outcome } of store.iterateEpisodeOutcomes(runId)) yield outcome;
    },
    *inTaskIdOrder() {
      const taskIds = store.listTaskIds(runId).sort((left, right) => left.localeCompare(right));
      const tasksPerRead = Math.max(1, Math.floor(episodesPerRead / Math.max(1, store.getRun(runId).trials)));
      for (let start = 0; start < taskIds.length;) {
        let end = Math.min(taskIds.length, start + tasksPerRead);
        // Ids localeCompare calls equal stay in one read, so the sort below orders them as one sort of every episode would.
        while (end < taskIds.length && taskIds[end - 1].localeCompare(taskIds[end]) === 0) end += 1;
        yield* sortedByTaskId(store.listEpisodeOutcomesOfTasks(runId, taskIds.slice(start, end)));
        start = end;
      }
    },
    scoredDurations: () => store.sortedScoredDurations(runId),
    usageTotals: () => store.usageTotals(runId),
  };
}

/** The episodes by task id, then trial (a stable sort: store order breaks ties). */
export function episodesInTaskIdOrder(episodes: ReportEpisodes): Iterable<EpisodeOutcome> {
  return episodes.inTaskIdOrder ? episodes.inTaskIdOrder() : sortedByTaskId([...episodes]);
}

function sortedByTaskId(episodes: EpisodeOutcome[]): EpisodeOutcome[] {
  return episodes.sort((left, right) => left.taskId.localeCompare(right.taskId) || left.trial - right.trial);
}

/** Tokens over every episode: one pass, or the stored run's SQL sums. */
export function usageTotals(episodes: ReportEpisodes): { inputTokens: number; outputTokens: number } {
  if (episodes.usageTotals) return episodes.usageTotals();
  let inputTokens = 0;
  let outputTokens = 0;
  for (const episode of episodes) {
    inputTokens += episode.usage.inputTokens;
    outputTokens += episode.usage.outputTokens;
  }
  return { inputTokens, outputTokens };
}

/** The scored episodes' durations, ascending, by rank. */
export function scoredDurations(episodes: ReportEpisodes): SortedValues {
  if (episodes.scoredDurations) return episodes.scoredDurations();
  const durations: number[] = [];
  for (const episode of episodes) if (episode.status === 'scored') durations.push(episode.durationMs);
  return sortedValuesOf(durations);
}

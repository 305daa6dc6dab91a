/**
 * The causes of a run's infrastructure errors, most frequent first: one per message with its numbers set aside
 * ('waiting 574 ms more' and 'waiting 745 ms more' are one cause), for the run's summary and a group's.
 */
import type { ResultsStore } from '../store/index.ts';

export type InfrastructureCause = { text: string; count: number; varied: boolean };

export function infrastructureCauses(store: ResultsStore, runId: string): InfrastructureCause[] {
  const counts = new Map<string, InfrastructureCause>();
  for (const episode of store.iterateEpisodes(runId, { status: 'infrastructure-error' })) {
    const text = episode.error ? episode.error.message : 'unknown error';
    const key = text.replace(/\d+(\.\d+)?/g, '#');
    const cause = counts.get(key) ?? { text, count: 0, varied: false };
    cause.count += 1;
    cause.varied ||= text !== cause.text;
    counts.set(key, cause);
  }
  return [...counts.values()].sort((left, right) => right.count - left.count);
}

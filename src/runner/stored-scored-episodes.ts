/**
 * A stored run's scored episodes as the suite summaries read them, straight from the store: each `for...of` reads
 * the episodes again a page at a time (task order, then trial), and a task is read and parsed only when a summary
 * asks for `episode.task` (most read only the score), a window of tasks at a time. Nothing holds every episode, so
 * summarising 100,000 episodes costs one page of memory. Episodes whose task is not stored are left out.
 */
import type { Score } from '../core/score.ts';
import type { Task } from '../core/task.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { ScoredEpisode } from '../suites/spec.ts';

/** Tasks read per window when a summary asks for them. */
const taskWindow = 256;

export function storedScoredEpisodes(store: ResultsStore, runId: string): Iterable<ScoredEpisode> {
  return {
    *[Symbol.iterator]() {
      let window: { from: number; to: number; tasks: Map<number, Task> } | undefined;
      const taskAt = (ordinal: number): Task => {
        if (!window || ordinal < window.from || ordinal > window.to) {
          window = { from: ordinal, to: ordinal + taskWindow - 1, tasks: store.listTasksBetween(runId, ordinal, ordinal + taskWindow - 1) };
        }
        const task = window.tasks.get(ordinal);
        if (!task) throw new Error(`run '${runId}' has no task at ordinal ${ordinal}`);
        return task;
      };
      for (const { ordinal, outcome } of store.iterateEpisodeOutcomes(runId, { status: 'scored' })) {
        if (outcome.score === null) continue;
        yield new StoredScoredEpisode(outcome.trial, outcome.score, ordinal, taskAt);
      }
    },
  };
}

class StoredScoredEpisode implements ScoredEpisode {
  readonly trial: number;
  readonly score: Score;
  readonly #ordinal: number;
  readonly #taskAt: (ordinal: number) => Task;

  constructor(trial: number, score: Score, ordinal: number, taskAt: (ordinal: number) => Task) {
    this.trial = trial;
    this.score = score;
    this.#ordinal = ordinal;
    this.#taskAt = taskAt;
  }

  get task(): Task {
    return this.#taskAt(this.#ordinal);
  }
}

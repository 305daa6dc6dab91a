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

/** Hears each episode of the first pass over the episodes (ordinal and score), and whether that pass read them all. */
export type FirstPassListener = { episode(ordinal: number, score: Score): void; completed(): void };

/**
 * `firstPass`: the run summary's own figures, taken from the suite summary's first read instead of a read of their
 * own (the same episodes in the same order; a second pass over 100,000 episodes is ~1 s).
 */
export function storedScoredEpisodes(store: ResultsStore, runId: string, firstPass?: FirstPassListener): Iterable<ScoredEpisode> {
  let passes = 0;
  return {
    *[Symbol.iterator]() {
      const listener = passes === 0 ? firstPass : undefined;
      passes += 1;
      let window: { from: number; to: number; tasks: Map<number, Task> } | undefined;
      const taskAt = (ordinal: number): Task => {
        if (!window || ordinal < window.from || ordinal > window.to) {
          window = { from: ordinal, to: ordinal + taskWindow - 1, tasks: store.listTasksBetween(runId, ordinal, ordinal + taskWindow - 1) };
        }
        const task = window.tasks.get(ordinal);
        if (!task) throw new Error(`run '${runId}' has no task at ordinal ${ordinal}`);
        return task;
      };
      for (const { ordinal, trial, score } of store.iterateScores(runId)) {
        listener?.episode(ordinal, score);
        yield new StoredScoredEpisode(trial, score, ordinal, taskAt);
      }
      listener?.completed();
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

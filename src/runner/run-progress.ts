import type { EpisodeStatus } from '../core/episode.ts';
import type { RunStatus } from '../store/stored-run.ts';

/** What the runner reports while it works (the CLI draws its progress bar from these). */
export type RunProgressEvent =
  /**
   * A new run is recorded, before its tasks are stored: from here a failure leaves a run to resume or delete (a store
   * that fills up while the tasks stream in), so the caller can name it.
   */
  | { type: 'run-recorded'; runId: string }
  | {
    type: 'run-start';
    runId: string;
    /** Episodes this invocation will run. */
    plannedEpisodes: number;
    /** Episodes already scored earlier (resume), not run again. */
    alreadyScoredEpisodes: number;
    /** tasks x trials. */
    totalEpisodes: number;
    /**
     * The tasks are still being imported (on a worker thread) as the episodes start: the counts are those stored so
     * far, and a 'run-planned' event gives the final ones.
     */
    tasksImporting?: true;
  }
  /** Every task of a run whose tasks were imported while it ran is stored: the run's final size. */
  | { type: 'run-planned'; runId: string; plannedEpisodes: number; totalEpisodes: number }
  /** An episode restarted from its first turn (its environment or sandbox broke). */
  | { type: 'episode-retry'; runId: string; taskId: string; trial: number; failedAttempt: number; delayMs: number; error: string }
  /** One model request retried inside its episode; `cause` is the error code of the failed attempt. */
  | { type: 'request-retry'; runId: string; taskId: string; trial: number; cause: string; failedAttempt: number; delayMs: number; error: string }
  | {
    type: 'episode-end';
    runId: string;
    taskId: string;
    trial: number;
    status: EpisodeStatus;
    /** Null when not scored. */
    passed: boolean | null;
    attempts: number;
    /** Episodes of this invocation ended so far, this one included. */
    completedEpisodes: number;
    plannedEpisodes: number;
  }
  | { type: 'run-end'; runId: string; status: RunStatus }
  /** Something the user should know that does not stop the run (e.g. replay outputs for tasks not in the run). */
  | { type: 'warning'; message: string };

export type RunProgressListener = (event: RunProgressEvent) => void;

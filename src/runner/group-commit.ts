/**
 * Group commit: ended episodes are buffered and written many per transaction, when the buffer is full or
 * `maxDelayMs` after the first one waiting, whichever comes first. One commit per episode costs more than
 * a replayed episode itself; a killed process loses at most the buffered episodes (at most `maxDelayMs` of
 * work), which resume runs again like any missing episode.
 */
import type { EpisodeRecord } from '../core/episode.ts';
import type { Message } from '../core/message.ts';
import type { EncodedEpisode, ResultsStore } from '../store/results-store.ts';
import type { TaskRow } from '../store/task-row.ts';

export type GroupCommit = {
  /** Buffers the episode (with its task's prompt, not stored again in its transcript); writes the buffer now when it is full. */
  add(episode: EpisodeRecord, taskPrompt?: readonly Message[]): void;
  /** Stores a batch of the run's tasks now (see EpisodeWriter.addTasks); the buffered episodes are of earlier tasks. */
  addTasks(runId: string, rows: TaskRow[], firstOrdinal: number, complete: boolean): void;
  /** Writes every buffered episode now. */
  flush(): void;
  /** Flushes and stops the timer; later adds are written at once. */
  close(): void;
};

export type GroupCommitOptions = { maxBatch?: number; maxDelayMs?: number };

export const defaultGroupCommit = { maxBatch: 500, maxDelayMs: 100 } as const;

export function createGroupCommit(store: ResultsStore, options: GroupCommitOptions = {}): GroupCommit {
  const maxBatch = options.maxBatch ?? defaultGroupCommit.maxBatch;
  const maxDelayMs = options.maxDelayMs ?? defaultGroupCommit.maxDelayMs;
  // Rows, not episodes: an ended episode's objects die young instead of being promoted while they wait.
  let buffer: EncodedEpisode[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  // A failed timed write is rethrown by the next add, flush or close: the runner stops, as it would on a direct write.
  let failure: { error: unknown } | undefined;
  const rethrow = (): void => {
    if (!failure) return;
    const { error } = failure;
    failure = undefined;
    throw error;
  };
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    store.saveEpisodes(batch);
  };
  const timedFlush = (): void => {
    try {
      flush();
    } catch (error) {
      failure ??= { error };
    }
  };
  return {
    add(episode, taskPrompt) {
      rethrow();
      buffer.push(store.encodeEpisode(episode, taskPrompt));
      if (closed || buffer.length >= maxBatch) flush();
      else timer ??= setTimeout(timedFlush, maxDelayMs);
    },
    addTasks(runId, rows, firstOrdinal, complete) {
      rethrow();
      store.appendTasks(runId, rows, firstOrdinal);
      if (complete) store.completeTasks(runId);
    },
    flush() {
      rethrow();
      flush();
    },
    close() {
      closed = true;
      rethrow();
      flush();
    },
  };
}

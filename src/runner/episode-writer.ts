/**
 * Group commit on a second thread. Storing an ended episode (its transcript gzipped, its row written to SQLite) was
 * about a quarter of the run thread's work for a built-in model's episode, and none of it needs that thread: the run
 * serialises each episode to its row (the objects live there), and a writer thread with its own connection to the
 * same SQLite file compresses the transcript and writes the batch. Batches are smaller than group commit's (at most 50 episodes
 * or 100 ms), so a killed process loses what it would have lost before plus the batch being written; resume runs
 * those again like any missing episode. The rows stored are byte for byte those of createGroupCommit.
 */
import type { Worker } from 'node:worker_threads';
import type { EpisodeRecord } from '../core/episode.ts';
import type { Message } from '../core/message.ts';
import { startModuleWorker } from '../core/module-worker.ts';
import { receiveError } from '../core/transferred-error.ts';
import type { TransferredError } from '../core/transferred-error.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { TaskRow } from '../store/task-row.ts';
import type { GroupCommitOptions } from './group-commit.ts';
import { defaultGroupCommit } from './group-commit.ts';

/** What the thread is started with (structured-cloned). */
export type EpisodeWriterJob = { location: string };

type EpisodeRow = Record<string, string | number | null | Buffer>;

export type EpisodeWriterRequest =
  | { type: 'rows'; rows: EpisodeRow[] }
  | { type: 'tasks'; runId: string; rows: TaskRow[]; firstOrdinal: number; complete: boolean }
  | { type: 'close' };

export type EpisodeWriterMessage = { type: 'written'; count: number } | { type: 'closed' } | { type: 'error'; error: TransferredError };

export type EpisodeWriter = {
  /** Buffers the episode's row; hands the buffer to the thread when it is full or 100 ms after its first row. */
  add(episode: EpisodeRecord, taskPrompt?: readonly Message[]): void;
  /**
   * Hands a batch of the run's tasks to the thread now, to store before any episode added after it (a run of tasks as
   * they are made, run-as-made.ts); `complete`: the run's last tasks, marked all stored once they are.
   */
  addTasks(runId: string, rows: TaskRow[], firstOrdinal: number, complete: boolean): void;
  /**
   * Undefined while fewer than `maxUnwritten` rows wait to be written; else a promise that settles once the thread has
   * caught up (or failed). The run awaits it after each episode, so a thread held up (another process holding the
   * database's write lock for seconds) slows the run instead of piling up rows that a kill would lose.
   */
  untilRoom(): Promise<void> | undefined;
  /** Hands over what is buffered, waits until the thread has written every row, and stops it. Throws a write's error. */
  close(): Promise<void>;
  /** Batches of episode rows handed to the thread so far, each written in one transaction. */
  batchesHandedOver(): number;
};

/** Whether the store can be written from another thread: a SQLite file (another connection opens it). */
export function canWriteOnThread(store: ResultsStore): boolean {
  return store.dialect === 'sqlite' && store.path !== ':memory:' && store.path !== '';
}

/**
 * Rows handed over at a time: fewer than group commit's 500, as a batch waits in two heaps (serialised, then cloned)
 * and rows that outlive a young-generation collection cost more than the extra commits (funcgen planner, 100,000
 * episodes: 500 -> 50 rows took peak RSS from 290 to 249 MB and the run from 41 to 33 s).
 */
const writerBatch = 50;
/**
 * Rows that may wait to be written before the run waits for the thread: four batches, under 100 ms of a fast run's
 * episodes (~2,500/s), so a kill loses about what group commit's 100 ms buffer would.
 */
const maxUnwritten = 4 * writerBatch;

export function startEpisodeWriter(store: ResultsStore, options: GroupCommitOptions = {}): EpisodeWriter {
  const maxBatch = options.maxBatch ?? writerBatch;
  const maxDelayMs = options.maxDelayMs ?? defaultGroupCommit.maxDelayMs;
  const worker: Worker = startModuleWorker(import.meta.url, './episode-writer-thread', {
    workerData: { location: store.path } satisfies EpisodeWriterJob,
    // Its garbage is a batch's rows and their compressed copies, short-lived: a small young generation keeps the
    // second heap from adding to the run's peak RSS.
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  });
  let buffer: EpisodeRow[] = [];
  let timer: NodeJS.Timeout | undefined;
  let unwritten = 0;
  let batches = 0;
  let failure: Error | undefined;
  let closing: Promise<void> | undefined;
  let caughtUp: { promise: Promise<void>; resolve: () => void } | undefined;
  const wake = (): void => {
    caughtUp?.resolve();
    caughtUp = undefined;
  };
  const ended = new Promise<void>((resolve) => {
    worker.on('message', (message: EpisodeWriterMessage) => {
      if (message.type === 'written') {
        unwritten -= message.count;
        if (unwritten + buffer.length < maxUnwritten) wake();
      } else if (message.type === 'error') {
        failure ??= receiveError(message.error);
        wake();
      } else resolve();
    });
    worker.on('error', (error) => {
      failure ??= error;
      wake();
      resolve();
    });
    worker.on('exit', (code) => {
      if (unwritten > 0 || (code !== 0 && closing === undefined)) failure ??= new Error(`the episode writer thread stopped (exit code ${code}) with ${unwritten} episodes unwritten`);
      wake();
      resolve();
    });
  });
  const rethrow = (): void => {
    if (failure) throw failure;
  };
  const handOver = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return;
    unwritten += buffer.length;
    batches += 1;
    worker.postMessage({ type: 'rows', rows: buffer } satisfies EpisodeWriterRequest);
    buffer = [];
  };
  return {
    add(episode, taskPrompt) {
      rethrow();
      if (closing) throw new Error('the episode writer was closed');
      buffer.push(store.encodeEpisode(episode, taskPrompt, { deferCompression: true }).row as EpisodeRow);
      if (buffer.length >= maxBatch) handOver();
      else timer ??= setTimeout(handOver, maxDelayMs);
    },
    addTasks(runId, rows, firstOrdinal, complete) {
      rethrow();
      if (closing) throw new Error('the episode writer was closed');
      worker.postMessage({ type: 'tasks', runId, rows, firstOrdinal, complete } satisfies EpisodeWriterRequest);
    },
    untilRoom() {
      if (failure || unwritten + buffer.length < maxUnwritten) return undefined;
      // The buffer is not handed over early: the thread has at least three batches to write (the buffer holds at most
      // one), and its last acknowledgement wakes the run. Handed over here, each of a high concurrency's episodes
      // ending while the thread was behind went as a transaction of one row (20,000 planner episodes at
      // --concurrency 256: 13.6 s, against 6.1 s at 4). Only a thread with nothing to write (a buffer larger than the
      // limit, with options.maxBatch) is handed it now.
      if (unwritten === 0) handOver();
      if (!caughtUp) {
        let resolve = (): void => {};
        const promise = new Promise<void>((settle) => { resolve = settle; });
        caughtUp = { promise, resolve };
      }
      return caughtUp.promise;
    },
    close() {
      closing ??= (async () => {
        handOver();
        worker.postMessage({ type: 'close' } satisfies EpisodeWriterRequest);
        await ended;
        rethrow();
      })();
      return closing;
    },
    batchesHandedOver: () => batches,
  };
}

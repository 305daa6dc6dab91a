/**
 * When a served episode is in the results store. The runner writes ended episodes by group commit (many per
 * transaction, up to ~100 ms after the first waits), so an answer acknowledged as it arrives could be lost to a
 * SIGKILL in that window. `toolforge serve` hands the runner this view of its store instead: each committed
 * transaction settles the waits for its episodes, and submit_answer is acknowledged only once its episode is
 * committed. The wait is the group commit's window (at most ~100 ms, plus scoring), small beside an agent's
 * episode; the runner is not changed, and its batching stays as it is for everything else.
 */
import type { EpisodeStatus } from '../core/episode.ts';
import type { EpisodeRecord } from '../core/episode.ts';
import type { EncodedEpisode, ResultsStore } from '../store/results-store.ts';

/** Whether an ended episode reached the store: with its status, or why the wait gave up. */
export type EpisodeStorage =
  | { stored: true; status: EpisodeStatus; errorCode?: string }
  /** 'run-ended': the run stopped (cancelled, or failed) without writing it; 'slow': not written within the wait. */
  | { stored: false; why: 'run-ended' | 'slow' };

export type EpisodeCommits = {
  /** The store to run on: the same store, whose episode writes also settle the waits below. */
  store: ResultsStore;
  /** Settles once the episode (task, trial) of this run is committed, or with `stored: false` once the run ends without it. */
  untilStored(taskId: string, trial: number): Promise<EpisodeStorage>;
  /** The run is over: a wait still open will never be settled by a write. */
  close(): void;
};

export function watchEpisodeCommits(store: ResultsStore): EpisodeCommits {
  const waits = new Map<string, ((storage: EpisodeStorage) => void)[]>();
  let closed = false;
  const settle = (episode: EpisodeRecord | EncodedEpisode): void => {
    const { key, storage } = storedOf(episode);
    const waiting = waits.get(key);
    if (!waiting) return;
    waits.delete(key);
    for (const resolve of waiting) resolve(storage);
  };
  // A Proxy, not a copy: every other method is the store's own, bound to it, including ones added later.
  const watched = new Proxy(store, {
    get(target, property) {
      if (property === 'saveEpisodes') {
        return (episodes: readonly (EpisodeRecord | EncodedEpisode)[]): boolean[] => {
          const saved = target.saveEpisodes(episodes);
          // Settled after the write returns: the transaction is committed (a failed write throws, settling nothing).
          for (const episode of episodes) settle(episode);
          return saved;
        };
      }
      if (property === 'saveEpisode') {
        return (...args: Parameters<ResultsStore['saveEpisode']>): boolean => {
          const saved = target.saveEpisode(...args);
          settle(args[0]);
          return saved;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    store: watched,
    untilStored(taskId, trial) {
      if (closed) return Promise.resolve({ stored: false, why: 'run-ended' });
      return new Promise((resolve) => {
        const key = episodeKey(taskId, trial);
        waits.set(key, [...(waits.get(key) ?? []), resolve]);
      });
    },
    close() {
      closed = true;
      for (const waiting of waits.values()) for (const resolve of waiting) resolve({ stored: false, why: 'run-ended' });
      waits.clear();
    },
  };
}

function episodeKey(taskId: string, trial: number): string {
  return `${taskId}\u0000${trial}`;
}

function storedOf(episode: EpisodeRecord | EncodedEpisode): { key: string; storage: EpisodeStorage } {
  if (!('kind' in episode)) {
    return { key: episodeKey(episode.taskId, episode.trial), storage: { stored: true, status: episode.status, ...(episode.error ? { errorCode: episode.error.code } : {}) } };
  }
  const { row } = episode;
  const errorCode = typeof row.error === 'string' ? parseErrorCode(row.error) : undefined;
  return {
    key: episodeKey(String(row.task_id), Number(row.trial)),
    storage: { stored: true, status: row.status as EpisodeStatus, ...(errorCode ? { errorCode } : {}) },
  };
}

function parseErrorCode(json: string): string | undefined {
  try {
    const parsed = JSON.parse(json) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

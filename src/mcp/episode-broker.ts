/**
 * Hands the runner's episodes to MCP client sessions, first come first served. The runner's agent
 * offers an episode and waits until a session claims it; a session claims the next episode offered
 * (waiting for one while the run is still going) and gets undefined once the broker is closed.
 */
import type { McpEpisode } from './mcp-episode.ts';

type Waiter = (episode: McpEpisode | undefined) => void;

export class EpisodeBroker {
  private readonly offered: { episode: McpEpisode; claimed: () => void }[] = [];
  private readonly claimers: Waiter[] = [];
  private closed = false;

  /** Resolves when a session has claimed the episode; rejects when `signal` aborts first. */
  offer(episode: McpEpisode, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const claimer = this.claimers.shift();
      if (claimer) {
        claimer(episode);
        resolve();
        return;
      }
      const entry = { episode, claimed: () => { signal.removeEventListener('abort', onAbort); resolve(); } };
      const onAbort = (): void => {
        const index = this.offered.indexOf(entry);
        if (index >= 0) this.offered.splice(index, 1);
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.offered.push(entry);
    });
  }

  /**
   * The next offered episode, or undefined once the broker is closed (the run is over) or `signal` aborts first (the
   * client that waited went away): its place in the queue is given up, so the next episode goes to a client that is there.
   */
  claim(signal?: AbortSignal): Promise<McpEpisode | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    const entry = this.offered.shift();
    if (entry) {
      entry.claimed();
      return Promise.resolve(entry.episode);
    }
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = (episode) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(episode);
      };
      const onAbort = (): void => {
        const index = this.claimers.indexOf(waiter);
        if (index >= 0) this.claimers.splice(index, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.claimers.push(waiter);
    });
  }

  close(): void {
    this.closed = true;
    for (const claimer of this.claimers.splice(0)) claimer(undefined);
  }
}

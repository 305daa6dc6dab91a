/**
 * How much of a served run is left, for what a client is told when it uses a session whose episode ended: counted
 * from the runner's progress (planned and ended episodes) and the episodes clients hold. An episode a client ended
 * counts as done at once, though the runner records it a moment later (after scoring), so the count a client reads
 * right after its answer does not still include its own episode.
 */
import type { RunStatus } from '../store/stored-run.ts';
import type { RunProgressListener } from '../runner/run-progress.ts';
import type { McpEpisode } from './mcp-episode.ts';

export type ServedRunCounts = {
  /** Episodes of this serve (tasks x trials, less those a resumed run had scored); undefined before the run starts. */
  total: number | undefined;
  /** Not ended yet: held by a client or waiting for one. */
  remaining: number;
  /** Held by a client and not ended. */
  playing: number;
  /** Set once the run is over: 'finished', or how it stopped. */
  ended: RunStatus | undefined;
};

export type ServedRunTally = {
  /** The runner's progress listener (passes every event on to `next`). */
  listener(next?: RunProgressListener): RunProgressListener;
  /** A client has the episode. */
  claimed(episode: McpEpisode): void;
  counts(): ServedRunCounts;
};

export function createServedRunTally(): ServedRunTally {
  let total: number | undefined;
  let recorded = 0;
  let ended: RunStatus | undefined;
  // Held episodes until the runner records them: at most the concurrency, so this does not grow with the run.
  const held = new Set<McpEpisode>();
  return {
    listener(next) {
      return (event) => {
        if (event.type === 'run-start' || event.type === 'run-planned') total = event.plannedEpisodes;
        else if (event.type === 'run-end') ended = event.status;
        else if (event.type === 'episode-end') {
          recorded = event.completedEpisodes;
          const episode = [...held].find((candidate) => candidate.isOver && isEpisode(candidate, event.taskId, event.trial));
          if (episode) held.delete(episode);
        } else if (event.type === 'episode-retry') {
          // Its attempt failed and the runner plays it again (a new episode for a client): the failed one is not left.
          for (const episode of held) if (episode.isOver && isEpisode(episode, event.taskId, event.trial)) held.delete(episode);
        }
        next?.(event);
      };
    },
    claimed(episode) {
      held.add(episode);
    },
    counts() {
      const endedUnrecorded = [...held].filter((episode) => episode.isOver).length;
      const playing = held.size - endedUnrecorded;
      const remaining = ended !== undefined || total === undefined ? 0 : Math.max(0, total - recorded - endedUnrecorded);
      return { total, remaining, playing: Math.min(playing, remaining), ended };
    },
  };
}

/** The trial tells trials of one task apart; an episode whose trial is unknown is matched by its task alone. */
function isEpisode(episode: McpEpisode, taskId: string, trial: number): boolean {
  return episode.task.id === taskId && (episode.trial === undefined || episode.trial === trial);
}

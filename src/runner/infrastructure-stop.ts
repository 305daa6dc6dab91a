/**
 * Stops a run whose infrastructure is down instead of letting it march through every remaining task. Each model
 * request is already retried (request-retry.ts), so an episode that still ends in an infrastructure error means its
 * provider, sandbox or agent failed for the whole of its retries; many in a row, with nothing scored between them,
 * mean every later episode would too (an endpoint that is not running, a revoked key, a spent retry budget). Without
 * this, a 40,000-task run against a server that was not started recorded 40,000 infrastructure errors in under a
 * minute. The run stops like one stopped by an error: what ended is kept, and `--resume` runs the rest.
 */
import type { EpisodeRecord } from '../core/episode.ts';
import { ToolForgeError } from '../core/errors.ts';
import type { ErrorCode } from '../core/errors.ts';

export type InfrastructureStop = {
  /** Counts an ended episode; the error to stop the run with, once `limit` in a row ended in infrastructure errors. */
  record(episode: EpisodeRecord): ToolForgeError | undefined;
};

/** The default limit: enough that one burst across every episode in flight does not stop a run. */
export function defaultInfrastructureStopAfter(concurrency: number): number {
  return Math.max(20, 2 * concurrency);
}

/** `limit` 0 never stops; `resumeCommand` is how the user continues the run once the cause is fixed. */
export function createInfrastructureStop(limit: number, resumeCommand: string): InfrastructureStop {
  let inARow = 0;
  return {
    record(episode) {
      if (episode.status !== 'infrastructure-error') {
        inARow = 0;
        return undefined;
      }
      inARow += 1;
      if (limit === 0 || inARow < limit) return undefined;
      const error = episode.error ?? { code: 'internal', message: 'unknown error' };
      // A recorded message ends with its own fix: it leads this error's fix.
      const [cause = error.message, causeFix] = error.message.split('\n  fix: ');
      // The episode's own error code (provider.connection, sandbox.crashed, ...), recorded by attemptEpisode.
      return new ToolForgeError(error.code as ErrorCode, `the run stopped: the last ${inARow} episodes ended in infrastructure errors, with nothing scored between them; the last one: ${cause}`, {
        fix: `${causeFix ?? 'fix that cause'}; then run the remaining episodes with '${resumeCommand}' (--stop-after-errors 0: never stop for this)`,
      });
    },
  };
}

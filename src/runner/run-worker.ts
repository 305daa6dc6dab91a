/**
 * A worker of a team run: claims the run's queued episodes from the shared store (usually PostgreSQL), one
 * lease at a time per lane, runs each exactly as a single-process run would (attemptEpisode), and commits it
 * at once, which ends its lease. Leases are renewed while the worker lives; a killed worker's leases expire
 * and its episodes are claimed by the others. Any number of workers on any number of machines may serve one run;
 * the one that sees the queue empty marks the run finished.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../core/errors.ts';
import { longestTimerMs } from '../core/limits.ts';
import { createHelperModelSources } from '../models/helper-models.ts';
import type { EpisodeClaim, ResultsStore } from '../store/results-store.ts';
import { forEachWithConcurrency } from './bounded-concurrency.ts';
import { createLazySandbox } from './lazy-sandbox.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { defaultRetryPolicy } from './retry-policy.ts';
import { createInfrastructureStop, defaultInfrastructureStopAfter } from './infrastructure-stop.ts';
import { attemptEpisode, openStoredRun, withStore, withWaitBudget } from './run-evaluation.ts';
import { checkNoRunHolder, thisProcessWorkerId, workerIsGone } from './run-hold.ts';
import type { ResumeOptions } from './run-evaluation.ts';
import type { RunProgressListener } from './run-progress.ts';
import type { RunSummary } from './summarize-run.ts';
import { summarizeRun } from './summarize-run.ts';
import { trustStoredTask } from './store-tasks.ts';

export type WorkerOptions = ResumeOptions & {
  /** Names this worker's leases (default: host name, process id and a random suffix). */
  workerId?: string;
  /** How long a claim holds without renewal (default 60 s): a killed worker's episodes wait this long. */
  leaseMs?: number;
  /** How often the worker looks at the queue again when nothing is left to claim but other workers hold leases (default 1 s). */
  pollMs?: number;
};

export type WorkerSummary = RunSummary & { workerId: string; episodesRun: number; duplicateSaves: number };

export const defaultLeaseMs = 60_000;

export async function runWorker(given: WorkerOptions): Promise<WorkerSummary> {
  const options = withWaitBudget(given, 'worker');
  const leaseMs = options.leaseMs ?? defaultLeaseMs;
  const pollMs = options.pollMs ?? Math.min(1000, Math.max(10, Math.floor(leaseMs / 4)));
  if (!Number.isInteger(leaseMs) || leaseMs < 100 || leaseMs > longestTimerMs) {
    throw new ConfigError('config.invalid', `the lease must be a whole number of ms from 100 to ${longestTimerMs}, got ${leaseMs}`, {
      fix: `pass --lease <ms> with 100 <= ms <= ${longestTimerMs} (longer than a store round trip, shorter than a Node timer holds; default 60000)`,
    });
  }
  const workerId = options.workerId ?? thisProcessWorkerId(randomUUID().slice(0, 8));
  return withStore(options, async (store) => {
    const { run, suite, model, concurrency } = openStoredRun(store, options);
    // A run that one process is running (not queued for workers) would have its episodes run twice.
    checkNoRunHolder(store, run.id, 'worked on by a worker');
    const retry: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
    const emit: RunProgressListener = options.onProgress ?? (() => {});
    // This worker's own stop (its infrastructure failing), beside the caller's.
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const infrastructureStop = createInfrastructureStop(options.stopAfterInfrastructureErrors ?? defaultInfrastructureStopAfter(concurrency), `toolforge worker --run ${run.id}${options.databaseFlag ?? ''}`);
    const queued = store.enqueueEpisodes(run.id);
    emit({ type: 'run-start', runId: run.id, plannedEpisodes: queued.pending + queued.leased, alreadyScoredEpisodes: queued.done, totalEpisodes: run.taskCount * run.trials });
    const sandbox = createLazySandbox(Math.min(concurrency, 2));
    const helperModels = createHelperModelSources({ retry, env: options.env, budget: options.waitBudget });
    // Renewal keeps a live worker's leases from expiring however long its episodes take.
    const renewal = setInterval(() => store.renewLeases(run.id, workerId, leaseMs), Math.max(50, Math.floor(leaseMs / 3)));
    renewal.unref();
    let episodesRun = 0;
    let saidWaiting = false;
    let duplicateSaves = 0;
    // The claims are one stream that the lanes take from one at a time: a lane asks for a claim only when it is free,
    // and however many lanes are idle, one of them looks at the queue (a worker with --concurrency 256 and a few
    // episodes left would otherwise poll the store with 250 lanes at once).
    async function* claims(): AsyncGenerator<EpisodeClaim> {
      while (!signal.aborted) {
        const claim = store.claimEpisode(run.id, workerId, leaseMs);
        if (claim) {
          yield claim;
          continue;
        }
        const counts = store.queueCounts(run.id);
        if (counts.pending === 0 && counts.leased === 0) return;
        // A worker killed on this machine: its episodes are taken now, not when its leases lapse.
        if (store.releaseGoneWorkers(run.id, workerIsGone) > 0) continue;
        if (!saidWaiting) {
          // Said once: a worker that sits silent for a lease's length looks hung.
          saidWaiting = true;
          emit({ type: 'warning', message: `nothing left to claim: waiting on the episodes in flight (${counts.leased}, this worker's included); a worker stopped on another machine frees them when its --lease time (${defaultLeaseMs} ms by default) lapses, and this worker then takes them` });
        }
        // Other workers hold the rest: wait for them to finish, or for a dead one's leases to expire.
        await sleep(pollMs, undefined, { signal }).catch(() => undefined);
      }
    }
    const runClaim = async (claim: EpisodeClaim): Promise<void> => {
      // Read per claim, not held: a worker's memory does not grow with the run.
      const found = store.findTask(run.id, claim.taskId);
      if (!found) throw new ConfigError('store.invalid', `run '${run.id}' queues task '${claim.taskId}', which is not among its tasks`, { fix: 'the run was changed by hand: delete it and start it again' });
      const task = trustStoredTask(suite, found);
      const episode = await attemptEpisode({
        run, suite, task, trial: claim.trial, model, retry, signal, emit, timeLimitMs: options.episodeTimeoutMs, sandbox: () => sandbox.get(), helperModels,
      });
      // Interrupted: the lease lapses and another worker (or a later one) runs the episode.
      if (!episode) return;
      if (!store.saveEpisode(episode, task.prompt)) duplicateSaves += 1;
      episodesRun += 1;
      emit({
        type: 'episode-end', runId: run.id, taskId: task.id, trial: claim.trial, status: episode.status, passed: episode.score?.passed ?? null,
        attempts: episode.attempts, completedEpisodes: episodesRun, plannedEpisodes: queued.pending,
      });
      const down = infrastructureStop.record(episode);
      if (down) {
        stop.abort(down);
        throw down;
      }
      // Built-in and replay models never wait on I/O: without a turn of the event loop here a Ctrl-C handler would
      // not run until the queue was empty.
      await yieldToEventLoop();
    };
    try {
      await forEachWithConcurrency(claims(), concurrency, runClaim, () => signal.aborted);
    } finally {
      clearInterval(renewal);
      await sandbox.dispose();
    }
    const counts = store.queueCounts(run.id);
    const finished = counts.pending === 0 && counts.leased === 0;
    if (finished) store.setRunStatus(run.id, 'finished');
    emit({ type: 'run-end', runId: run.id, status: signal.aborted ? 'cancelled' : finished ? 'finished' : 'running' });
    return { ...summarizeRun(store, run.id, suite), workerId, episodesRun, duplicateSaves };
  }, { mustExist: true });
}

/** For the CLI and tests: the queue of a stored run (pending, leased, done). */
export function describeQueue(store: ResultsStore, runId: string): string {
  const { pending, leased, done } = store.queueCounts(runId);
  return `${done} done, ${leased} leased, ${pending} pending`;
}

/**
 * One process runs a run at a time. The process that starts or continues a run holds it under a lease it renews;
 * another `run --resume`, `serve --resume`, `delete` or `rescore` of it is refused while the hold is live, with who
 * holds it. Before, a resume of a run still running stored its tasks a second time, crashed, and marked the run
 * cancelled under the process that was finishing it.
 *
 * A process killed on this machine frees its runs at once (its pid is gone); one on another machine sharing a
 * PostgreSQL database frees them when its lease runs out.
 */
import { hostname } from 'node:os';
import { ConfigError } from '../core/errors.ts';
import type { ResultsStore, RunHold, StoredRun } from '../store/index.ts';

/** How long a hold lasts unrenewed: a killed process on another machine keeps its runs this long. */
export const runHoldLeaseMs = 60_000;
const renewEveryMs = 10_000;

/** This process, as a holder: `host pid N`. */
export function thisProcessHolder(): string {
  return `${hostname()} pid ${process.pid}`;
}

/** Whether a holder's process has ended, as far as this machine can tell: only a process on this host can be looked at. */
export function holderIsGone(holder: string): boolean {
  const match = /^(.*) pid (\d+)$/.exec(holder);
  if (match === null || match[1] !== hostname()) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: a process of another user has that pid, so it is alive.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** A worker of this process, as the work queue names it: the process (as a holder), then the worker's own tag. */
export function thisProcessWorkerId(tag: string): string {
  return `${thisProcessHolder()} worker ${tag}`;
}

/** Whether a worker's process has ended, as far as this machine can tell (ids of another form never are). */
export function workerIsGone(workerId: string): boolean {
  const match = /^(.* pid \d+) worker \S+$/.exec(workerId);
  return match !== null && holderIsGone(match[1]);
}

/** The refusal when another process holds the run: who, and what to do. */
export function runHeldError(runId: string, hold: RunHold, doing: string): ConfigError {
  return new ConfigError('store.run-busy', `run '${runId}' is being run by another process (${hold.holder}), so it cannot be ${doing} now`, {
    fix: `wait for that run to end, or stop it (Ctrl-C) first; if that process was killed on another machine, its hold on the run lapses within ${runHoldLeaseMs / 1000} s`,
  });
}

/** Refuses `doing` (deleted, rescored) while another process holds the run or workers hold its episodes. */
export function checkRunNotHeld(store: ResultsStore, runId: string, doing: string): void {
  checkNoRunHolder(store, runId, doing);
  checkNoWorkerLeases(store, runId, doing);
}

/** Refuses `doing` while another process holds the run (workers of a team run share it: they lease episodes). */
export function checkNoRunHolder(store: ResultsStore, runId: string, doing: string): void {
  const hold = store.runHold(runId);
  if (hold !== undefined && hold.holder !== thisProcessHolder() && !holderIsGone(hold.holder)) throw runHeldError(runId, hold, doing);
}

/** A team run's episodes leased by live workers (toolforge worker) would be run twice. */
function checkNoWorkerLeases(store: ResultsStore, runId: string, doing: string): void {
  // A worker killed on this machine holds nothing: its leases end now, not when they run out.
  store.releaseGoneWorkers(runId, workerIsGone);
  const { leased } = store.queueCounts(runId);
  if (leased === 0) return;
  throw new ConfigError('store.run-busy', `run '${runId}' has ${leased} episodes being run by workers (toolforge worker), so it cannot be ${doing} now`, {
    fix: 'wait for the workers to finish, or stop them first; a worker stopped on another machine frees its episodes once their leases run out (--lease, 60 s by default)',
  });
}

/**
 * Runs `work` with the run held by this process: taken first (refused, naming the holder, if another holds it),
 * renewed while `work` runs, and let go when it ends, however it ends.
 */
export async function withRunHeld<T>(store: ResultsStore, runId: string, doing: string, work: () => Promise<T>): Promise<T> {
  const holder = thisProcessHolder();
  const other = store.holdRun(runId, holder, runHoldLeaseMs, holderIsGone);
  if (other !== undefined) throw runHeldError(runId, other, doing);
  try {
    checkNoWorkerLeases(store, runId, doing);
  } catch (error) {
    store.releaseRun(runId, holder);
    throw error;
  }
  const renewal = setInterval(() => {
    try {
      store.holdRun(runId, holder, runHoldLeaseMs, () => false);
    } catch {
      // A busy database misses one renewal; the next one, 10 s later, is well inside the lease.
    }
  }, renewEveryMs);
  renewal.unref();
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    try {
      store.releaseRun(runId, holder);
    } catch {
      // A deleted run (refused before it started) has nothing to let go.
    }
  }
}

/** A run's status as a reader should see it: stored, except a killed run's (see shownRunStatus). */
export type ShownRunStatus = StoredRun['status'] | 'interrupted';

/**
 * A run stored as 'running' that no live process holds and no worker is queued for was killed: it is shown as
 * 'interrupted' (resume it), not as running forever. A team run waiting for its workers is still running.
 */
export function shownRunStatus(store: ResultsStore, run: StoredRun): ShownRunStatus {
  if (run.status !== 'running') return run.status;
  const hold = store.runHold(run.id);
  if (hold !== undefined && !holderIsGone(hold.holder)) return 'running';
  const queue = store.queueCounts(run.id);
  return queue.pending + queue.leased > 0 ? 'running' : 'interrupted';
}

/**
 * A team run whose queued episodes no worker holds (none started, or every one stopped and its leases lapsed): shown as
 * running, since workers may still come, with the command that starts one.
 */
export function isWaitingForWorkers(store: ResultsStore, run: StoredRun): boolean {
  if (run.status !== 'running') return false;
  const hold = store.runHold(run.id);
  if (hold !== undefined && !holderIsGone(hold.holder)) return false;
  const queue = store.queueCounts(run.id);
  return queue.pending > 0 && queue.leased === 0;
}

/**
 * A run no process is running is finished by `--resume`, unless it was stopped while its tasks were being stored and
 * nothing can make the rest again (tasks a phrasing model wrote): such a run is started again with the command that
 * started it, and deleted. `runs`, the viewer and a refused resume say the same.
 */
import { shellCommand } from '../core/shell-argument.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { StoredRun } from '../store/stored-run.ts';
import type { ShownRunStatus } from './run-hold.ts';
import { resumeCommand } from './external-agent-run.ts';

/** Stopped runs that no process runs, as `runs` and the viewer name them: killed, stopped by a signal, stopped by an error. */
export const stoppedRunStatuses = {
  interrupted: 'no process runs it',
  cancelled: 'stopped by Ctrl-C or a stop signal before it ended',
  failed: 'stopped by an error before it ended',
} as const satisfies Partial<Record<ShownRunStatus, string>>;

export type StoppedRunStatus = keyof typeof stoppedRunStatuses;

/**
 * A run stopped before it ended with work left: episodes not scored, or tasks not all stored. Interrupted, cancelled
 * and failed runs are all finished by the same resume (or started again, or rescored again); a cancelled run whose
 * every episode was scored before the stop has nothing left.
 */
export function stoppedWithWorkLeft(store: Pick<ResultsStore, 'hasAllTasks'>, run: StoredRun, status: ShownRunStatus, scored: number): status is StoppedRunStatus {
  if (!(status in stoppedRunStatuses)) return false;
  return status === 'interrupted' || scored < run.taskCount * run.trials || !store.hasAllTasks(run.id);
}

/** Stopped while storing its tasks, with no recipe or tasks file to store the rest from. */
export function cannotStoreRestOfTasks(store: Pick<ResultsStore, 'hasAllTasks'>, run: StoredRun): boolean {
  return run.provenance.taskRecipe === undefined && run.provenance.tasksFile === undefined && !store.hasAllTasks(run.id);
}

/** The run started again by the command that started it, and this one deleted, both in the run's database. */
export function startAgainFix(run: Pick<StoredRun, 'id' | 'provenance'>, databaseFlag = ''): string {
  return `start it again with the command that started it (toolforge ${shellCommand(run.provenance.cliArgs)}), and delete this one with 'toolforge delete ${run.id}${databaseFlag}'`;
}

/**
 * What replaces a rescore stopped part-way (killed, or its store failed a write): a copy of another run's episodes
 * scored again is made again from that run, never continued, so the rescore again and the delete of this copy.
 */
export function rescoreAgainFix(run: Pick<StoredRun, 'id' | 'provenance'>, databaseFlag = ''): string {
  return `rescore it again with toolforge rescore ${run.provenance.rescoredFrom ?? '<run>'}${databaseFlag} (a rescore is made again, not continued), and delete this one with 'toolforge delete ${run.id}${databaseFlag}'`;
}

/**
 * What finishes a run stopped with work left (stoppedWithWorkLeft): a rescore is made again, a run whose remaining
 * tasks nothing can make is started again, any other is resumed (by the command for who ran it).
 */
export function finishStoppedRunText(store: Pick<ResultsStore, 'hasAllTasks'>, run: StoredRun, databaseFlag = ''): string {
  if (run.provenance.rescoredFrom !== undefined) return rescoreAgainFix(run, databaseFlag);
  if (cannotStoreRestOfTasks(store, run)) return startAgainFix(run, databaseFlag);
  return `finish it with ${resumeCommand(run, databaseFlag)}`;
}

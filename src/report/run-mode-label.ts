import type { StoredRun } from '../store/stored-run.ts';
import { listSuites } from '../suites/registry.ts';

/** A run without --mode ran each task in its first mode: show which mode that is rather than a placeholder. */
export function runModeLabel(run: Pick<StoredRun, 'mode' | 'suite'>): string {
  if (run.mode) return run.mode;
  const suite = listSuites().find((candidate) => candidate.id === run.suite.id);
  return suite ? `${suite.modes[0]} (default)` : 'task default';
}

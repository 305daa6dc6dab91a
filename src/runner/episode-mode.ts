/** The one place a run's mode is checked and each episode's mode is decided. */
import { ConfigError } from '../core/errors.ts';
import type { Mode } from '../core/mode.ts';
import type { Task } from '../core/task.ts';
import type { Suite } from '../suites/spec.ts';

/** A requested mode the suite lacks is the user's error, before anything is generated or run. */
export function checkSuiteMode(suite: Suite, mode: Mode | undefined | null): void {
  if (mode === undefined || mode === null || suite.modes.includes(mode)) return;
  throw new ConfigError('config.unsupported-mode', `suite '${suite.id}' does not support mode '${mode}'`, {
    fix: `use --mode ${suite.modes.join('|')} (or leave it out for ${suite.modes[0]})`,
  });
}

/** The run's mode when it names one, else the task's default (its first mode). */
export function episodeMode(runMode: Mode | null | undefined, task: Task): Mode {
  return runMode ?? task.modes[0];
}

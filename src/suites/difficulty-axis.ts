import type { Task } from '../core/task.ts';

/**
 * A dimension along which a suite's tasks get harder, for reports that chart accuracy against it.
 * Declarative (no code), so a report can read it for any stored task: the level is the task's knob
 * value `task.params[knob]` when present, else its statistic `task.stats[stat]` (imported data has
 * statistics but no generator knobs). Numbers are charted in order; text levels are categories.
 */
export type DifficultyAxis = {
  /** The axis name reports print; for a knob axis also the knob `sweep --grid` varies. */
  name: string;
  description: string;
  knob?: string;
  stat?: string;
};

export type DifficultyLevel = number | string;

/** A task's level on an axis, or undefined when the task records neither the knob nor the statistic. */
export function difficultyLevel(axis: DifficultyAxis, task: Pick<Task, 'params' | 'stats'>): DifficultyLevel | undefined {
  for (const value of [axis.knob === undefined ? undefined : task.params[axis.knob], axis.stat === undefined ? undefined : task.stats[axis.stat]]) {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'boolean') return String(value);
  }
  return undefined;
}

import type { ReportEpisodes } from './report-episodes.ts';
import type { SweepMembership } from '../runner/sweep-membership.ts';
import type { DifficultyAxis, DifficultyLevel } from '../suites/difficulty-axis.ts';
import type { ReportTable } from '../suites/spec.ts';

/**
 * The figures of one run that every report shows. The runner's RunSummary has this shape; the
 * report names only what it reads, so it renders stored runs and hand-built ones alike.
 */
export type ReportSummary = {
  runId: string;
  suite: string;
  model: string;
  mode: string;
  tasks: number;
  trials: number;
  episodes: number;
  infrastructureErrors: number;
  /** Episodes of the run's tasks with no row yet (a run stopped or killed before it ended); absent counts as none. */
  missingEpisodes?: number;
  passRate: number;
  passRateCI95: readonly [number, number] | number[];
  metrics: Readonly<Record<string, number>>;
  failures: Readonly<Record<string, number>>;
  /** Retries by cause (absent in hand-built summaries: none). */
  retries?: Readonly<Record<string, number>>;
  tables: readonly ReportTable[];
  /**
   * Present for a run stopped while its tasks were still being stored (`tasks` counts those stored, so its episodes
   * may all be scored and none missing): `resumable` when `run --resume` stores the rest, else `start-again`.
   */
  tasksIncomplete?: TasksIncomplete;
};

/** How a run stopped while its tasks were still being stored goes on: `run --resume` stores the rest, or it starts again. */
export type TasksIncomplete = 'resumable' | 'start-again';

/** One run as a report sees it: its summary and its episodes (for the per-task table and CSV), read a pass at a time. */
export type RunReport = {
  summary: ReportSummary;
  /** When the run started (ISO 8601), if known. */
  startedAt: string | null;
  episodes: ReportEpisodes;
  /** The suite's difficulty axes (absent: the report draws no difficulty figures for this run). */
  difficultyAxes?: readonly DifficultyAxis[];
  /** Each task's level on each axis, by task id then axis name. */
  taskLevels?: Readonly<Record<string, Readonly<Record<string, DifficultyLevel>>>>;
  /** The sweep the run belongs to, if any. */
  sweep?: SweepMembership;
  /** The transforms its tasks were derived with, as one label (`rename-tools + drift:op=all`); absent or '' for none. */
  transforms?: string;
  /** The model's endpoint and generation settings as one label (`base-url=..., temperature=0.7`); absent or '' for none. */
  modelSettings?: string;
  /** The run's status as `runs` shows it (a killed run is 'interrupted'); absent when not read from a store. */
  status?: string;
};

/** The keys `run --json` prints, in this order (the documented machine-readable summary). */
export function summaryObject(summary: ReportSummary): {
  runId: string; suite: string; model: string; mode: string; tasks: number; trials: number; episodes: number;
  infrastructureErrors: number; passRate: number | null; passRateCI95: [number, number] | null;
  metrics: Record<string, number>; failures: Record<string, number>; retries: Record<string, number>;
} {
  return {
    runId: summary.runId,
    suite: summary.suite,
    model: summary.model,
    mode: summary.mode,
    tasks: summary.tasks,
    trials: summary.trials,
    episodes: summary.episodes,
    infrastructureErrors: summary.infrastructureErrors,
    // Nothing scored (every episode an infrastructure error): no pass rate, as the table says, not a rate of 0.
    passRate: summary.episodes === 0 ? null : summary.passRate,
    passRateCI95: summary.episodes === 0 ? null : [summary.passRateCI95[0], summary.passRateCI95[1]],
    metrics: { ...summary.metrics },
    failures: { ...summary.failures },
    retries: { ...summary.retries },
  };
}

import type { EpisodeOutcome } from '../store/episode-query.ts';
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
  passRate: number;
  passRateCI95: readonly [number, number] | number[];
  metrics: Readonly<Record<string, number>>;
  failures: Readonly<Record<string, number>>;
  tables: readonly ReportTable[];
};

/** One run as a report sees it: its summary and every stored episode (for the per-task table and CSV). */
export type RunReport = {
  summary: ReportSummary;
  /** When the run started (ISO 8601), if known. */
  startedAt: string | null;
  episodes: readonly EpisodeOutcome[];
};

/** The keys `run --json` prints, in this order (the documented machine-readable summary). */
export function summaryObject(summary: ReportSummary): {
  runId: string; suite: string; model: string; mode: string; tasks: number; trials: number; episodes: number;
  infrastructureErrors: number; passRate: number; passRateCI95: [number, number];
  metrics: Record<string, number>; failures: Record<string, number>;
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
    passRate: summary.passRate,
    passRateCI95: [summary.passRateCI95[0], summary.passRateCI95[1]],
    metrics: { ...summary.metrics },
    failures: { ...summary.failures },
  };
}

import { summarizeRun } from '../runner/summarize-run.ts';
import { sweepMembershipOf } from '../runner/sweep-membership.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { DifficultyLevel } from '../suites/difficulty-axis.ts';
import { difficultyLevel } from '../suites/difficulty-axis.ts';
import { listSuites } from '../suites/registry.ts';
import type { RunReport } from './run-report.ts';

/**
 * A stored run as a report: figures recomputed from the store, plus its episodes (without transcripts), each task's level
 * on its suite's difficulty axes (none for a suite this install does not have), and its sweep.
 */
export function loadRunReport(store: ResultsStore, runId: string): RunReport {
  const summary = summarizeRun(store, runId);
  const run = store.getRun(runId);
  const axes = listSuites().find((suite) => suite.id === run.suite.id)?.difficultyAxes ?? [];
  const taskLevels: Record<string, Record<string, DifficultyLevel>> = {};
  if (axes.length > 0) {
    for (const task of store.listTasks(runId)) {
      const levels: Record<string, DifficultyLevel> = {};
      for (const axis of axes) {
        const level = difficultyLevel(axis, task);
        if (level !== undefined) levels[axis.name] = level;
      }
      taskLevels[task.id] = levels;
    }
  }
  const sweep = sweepMembershipOf(run.params);
  return {
    summary, startedAt: summary.createdAt, episodes: store.listEpisodeOutcomes(runId),
    ...(axes.length > 0 ? { difficultyAxes: axes, taskLevels } : {}),
    ...(sweep ? { sweep } : {}),
  };
}

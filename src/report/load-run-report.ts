import { modelSettingsLabel } from '../models/model-settings-label.ts';
import { transformsLabel } from './model-variant.ts';
import { shownRunStatus } from '../runner/run-hold.ts';
import { summarizeRun } from '../runner/summarize-run.ts';
import { sweepMembershipOf } from '../runner/sweep-membership.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { DifficultyAxis, DifficultyLevel } from '../suites/difficulty-axis.ts';
import { difficultyLevel } from '../suites/difficulty-axis.ts';
import { listSuites } from '../suites/registry.ts';
import { storedReportEpisodes } from './report-episodes.ts';
import type { RunReport } from './run-report.ts';

/**
 * A stored run as a report: figures recomputed from the store, plus its episodes (without transcripts, read from the
 * store a page at a time on each pass the report makes), each task's level
 * on its suite's difficulty axes (none for a suite this install does not have), and its sweep.
 */
export function loadRunReport(store: ResultsStore, runId: string): RunReport {
  const summary = summarizeRun(store, runId);
  const run = store.getRun(runId);
  const sweep = sweepMembershipOf(run.params);
  const { axes, taskLevels } = loadTaskLevels(store, runId, run.suite.id, Object.keys(sweep?.grid ?? {}));
  const settingsLabel = modelSettingsLabel(run.baseUrl, run.settings);
  return {
    summary, startedAt: summary.createdAt, episodes: storedReportEpisodes(store, runId),
    ...(axes.length > 0 ? { difficultyAxes: axes, taskLevels } : {}),
    ...(sweep ? { sweep } : {}),
    ...(run.provenance.transforms?.length ? { transforms: transformsLabel(run.provenance.transforms) } : {}),
    ...(settingsLabel === '' ? {} : { modelSettings: settingsLabel }),
    status: shownRunStatus(store, run),
  };
}

/**
 * Each task's level on its suite's difficulty axes (none for a suite this install does not have), and the axes
 * whose levels all come from a knob every task records (`knobAxes`: axis name -> knob), which the viewer's
 * `knob.<name>` filter can select.
 */
export function loadTaskLevels(store: ResultsStore, runId: string, suiteId: string, sweptKnobs: readonly string[] = []): {
  axes: readonly DifficultyAxis[]; taskLevels: Record<string, Record<string, DifficultyLevel>>; knobAxes: Record<string, string>;
} {
  const suiteAxes = listSuites().find((suite) => suite.id === suiteId)?.difficultyAxes ?? [];
  // A knob a sweep varied is charted too, axis of the suite or not (`--grid restate=true,false`): the sweep asked for it.
  const axes = [...suiteAxes, ...sweptKnobs.filter((knob) => !suiteAxes.some((axis) => axis.name === knob || axis.knob === knob))
    .map((knob): DifficultyAxis => ({ name: knob, description: `the swept knob ${knob}`, knob }))];
  const taskLevels: Record<string, Record<string, DifficultyLevel>> = {};
  const knobAxes: Record<string, string> = Object.fromEntries(axes.flatMap((axis) => (axis.knob ? [[axis.name, axis.knob]] : [])));
  if (axes.length === 0) return { axes, taskLevels, knobAxes };
  for (const task of store.iterateTaskParamsAndStats(runId)) {
    const levels: Record<string, DifficultyLevel> = {};
    for (const axis of axes) {
      const level = difficultyLevel(axis, task);
      if (level !== undefined) levels[axis.name] = level;
      if (axis.knob && task.params[axis.knob] === undefined) delete knobAxes[axis.name];
    }
    taskLevels[task.id] = levels;
  }
  return { axes, taskLevels, knobAxes };
}

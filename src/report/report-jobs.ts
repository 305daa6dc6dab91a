/**
 * The viewer's full reports (every episode of one run or of every run) as jobs: what a build is asked for, the key
 * identical requests share a build under, and the build itself, which a report thread runs (report-threads.ts) over
 * one snapshot of the database.
 */
import { ToolForgeError } from '../core/errors.ts';
import { sweepMembershipOf } from '../runner/sweep-membership.ts';
import { openPostgresConnection } from '../store/postgres/postgres-connection.ts';
import type { ResultsStore } from '../store/results-store.ts';
import { isPostgresLocation } from '../store/results-store.ts';
import { createSqlResultsStore } from '../store/sql-results-store.ts';
import { openSqliteConnection } from '../store/sqlite-connection.ts';
import { difficultyCurves } from './difficulty-curves.ts';
import { loadRunReport, loadTaskLevels } from './load-run-report.ts';
import { renderHtml } from './render-html.ts';
import { renderJson } from './render-json.ts';
import { storedReportEpisodes } from './report-episodes.ts';
import { compareWithFirstRuns } from './run-comparisons.ts';
import { supersededNote, withoutSupersededRuns } from './superseded-runs.ts';
import { renderRunDifficultyPage } from './viewer/difficulty-section.ts';
import { renderSweepPage } from './viewer/sweep-page.ts';

export type ReportJob =
  /** GET /report */
  | { kind: 'all-runs-html' }
  /** GET /api/runs */
  | { kind: 'all-runs-json' }
  /** GET /runs/<id>/report */
  | { kind: 'run-html'; runId: string }
  /** GET /api/runs/<id> */
  | { kind: 'run-json'; runId: string }
  /** GET /runs/<id>/difficulty */
  | { kind: 'run-difficulty-html'; runId: string }
  /** GET /sweeps/<group> */
  | { kind: 'sweep-html'; group: string; /** ` --db <file>` in the command the page shows, when not the default database. */ databaseFlag?: string };

export type BuiltReport = { contentType: 'text/html; charset=utf-8' | 'application/json'; body: string };

/** Requests with the same key get the same report: the kind and the run or sweep it names. */
export function reportJobKey(job: ReportJob): string {
  return [job.kind, 'runId' in job ? job.runId : 'group' in job ? job.group : ''].join('\n');
}

export function buildReport(store: ResultsStore, job: ReportJob): BuiltReport {
  const html = (body: string): BuiltReport => ({ contentType: 'text/html; charset=utf-8', body });
  switch (job.kind) {
    case 'all-runs-html': {
      const group = withoutSupersededRuns(store.listRuns().reverse());
      const runIds = group.runs.map((run) => run.id);
      const note = supersededNote(group.superseded);
      return html(renderHtml(runIds.map((id) => loadRunReport(store, id)), { linkTasks: true, comparisons: compareWithFirstRuns(store, runIds), notes: note === undefined ? [] : [note] }));
    }
    case 'all-runs-json':
      return { contentType: 'application/json', body: renderJson(store.listRuns().reverse().map((run) => loadRunReport(store, run.id)), { single: false }) };
    case 'run-html':
      return html(renderHtml([loadRunReport(store, job.runId)], { title: `ToolForge run ${job.runId}`, linkTasks: true }));
    case 'run-json':
      return { contentType: 'application/json', body: renderJson([loadRunReport(store, job.runId)], { single: true }) };
    case 'run-difficulty-html':
      return html(runDifficultyPage(store, job.runId));
    case 'sweep-html': {
      const members = store.listRuns().filter((run) => sweepMembershipOf(run.params)?.group === job.group).reverse();
      // The viewer checked the sweep has runs before asking; they were deleted since.
      if (members.length === 0) throw new ToolForgeError('store.unknown-run', `no run belongs to sweep '${job.group}'; the runs page lists the sweeps`);
      const group = withoutSupersededRuns(members);
      const reports = group.runs.map((run) => loadRunReport(store, run.id));
      return html(renderSweepPage(job.group, reports, difficultyCurves(reports), supersededNote(group.superseded), job.databaseFlag));
    }
  }
}

/** A run's own difficulty curves (axes its tasks vary on) from its tasks and episode outcomes, never transcripts. */
function runDifficultyPage(store: ResultsStore, runId: string): string {
  const run = store.getRun(runId);
  const sweepOfRun = sweepMembershipOf(run.params);
  const { axes, taskLevels, knobAxes } = loadTaskLevels(store, run.id, run.suite.id);
  const curves = axes.length === 0 ? [] : difficultyCurves([{
    summary: { suite: run.suite.id, model: run.model, mode: run.mode ?? 'default' },
    episodes: storedReportEpisodes(store, run.id), difficultyAxes: axes, taskLevels,
  }]);
  return renderRunDifficultyPage(run, curves, knobAxes, sweepOfRun);
}

/**
 * The database opened read-only for one build, inside one read transaction: a report reads a run many times (summary,
 * episodes page by page, comparisons), and a run deleted or rescored by another process in between would otherwise
 * be half there (an unknown run mid-build, or figures that disagree). SQLite takes the snapshot at the first read;
 * PostgreSQL's REPEATABLE READ keeps the first statement's snapshot for the whole transaction.
 */
export function openReportSnapshot(location: string): { store: ResultsStore; close(): void } {
  const postgres = isPostgresLocation(location);
  const connection = postgres ? openPostgresConnection(location, { readOnly: true }) : openSqliteConnection(location, { readOnly: true });
  try {
    connection.run(postgres ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
  } catch (error) {
    connection.close();
    throw error;
  }
  return {
    store: createSqlResultsStore(connection),
    close: () => {
      try {
        connection.run('ROLLBACK');
      } finally {
        connection.close();
      }
    },
  };
}

import type { Command } from 'commander';
import { Option } from 'commander';
import { resolve } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import { loadRunReport } from '../../report/load-run-report.ts';
import type { PriceTable } from '../../report/model-prices.ts';
import { defaultPrices, readPriceFile } from '../../report/model-prices.ts';
import { analyzeReports } from '../../report/report-analysis.ts';
import { renderCsv } from '../../report/render-csv.ts';
import { renderHtml } from '../../report/render-html.ts';
import { renderReportJson } from '../../report/render-json.ts';
import { renderTable } from '../../report/render-table.ts';
import type { ReportedComparison } from '../../report/run-comparisons.ts';
import { compareWithFirstRuns, unpairedRunsNote } from '../../report/run-comparisons.ts';
import { withTransformPairs } from '../../report/transform-pairs.ts';
import { supersededNote, withoutSupersededRuns } from '../../report/superseded-runs.ts';
import { sweepMembershipOf } from '../../runner/sweep-membership.ts';
import type { ResultsStore } from '../../store/results-store.ts';
import type { StoredRun } from '../../store/stored-run.ts';
import type { CliIo } from '../cli-io.ts';
import { checkOutputPath } from '../output-path.ts';
import { writeOutputFile } from '../write-output-file.ts';
import { openExistingStore, withStore } from '../open-store.ts';
import { resolveDatabasePath } from '../option-parsers.ts';
import { resolveRunId } from './resolve-run-id.ts';
import { databaseFlag } from './run.ts';
import { isWaitingForWorkers, shownRunStatus } from '../../runner/run-hold.ts';
import { finishStoppedRunText, stoppedWithWorkLeft } from '../../runner/interrupted-run.ts';

export type ReportFormat = 'table' | 'json' | 'csv' | 'html';

export function registerReportCommand(program: Command, io: CliIo): void {
  program
    .command('report')
    .description('report stored runs: pass rate with 95% CI, accuracy along difficulty axes, leaderboard, paired comparisons (with tasks needed), failures, tokens, cost, latency, per-task results')
    .argument('[runs...]', "run ids (see 'toolforge runs') or 'latest'; several are reported together, each compared with the first given of its suite; default: every run in the database")
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'csv', 'html']).default('table'))
    .option('--sweep <group>', "only the runs of this sweep group ('latest' for the newest sweep)")
    .option('--prices <file>', 'JSON model prices, USD per million tokens, over the built-in table: {"openai/gpt-4.1": {"input": 2, "output": 8}}')
    .option('--out <file>', 'write to this file instead of stdout (- or no --out: stdout)')
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .action(async (runs: string[], options: { format: ReportFormat; sweep?: string; prices?: string; out?: string; db?: string }) => {
      if (runs.length > 0 && options.sweep !== undefined) {
        throw new ConfigError('config.invalid', 'give runs or --sweep, not both', { fix: `'toolforge report ${runs.join(' ')}' or 'toolforge report --sweep ${options.sweep}'` });
      }
      const prices = options.prices === undefined ? defaultPrices : readPriceFile(resolve(io.cwd, options.prices));
      // A report of a large database takes a while to make: a path it cannot be written to is said first.
      if (options.out !== undefined) checkOutputPath(io.cwd, options.out);
      const output = await withStore(openExistingStore(resolveDatabasePath(options.db, io.cwd)), (store) => {
        // listRuns is newest first; reports read oldest first, like a lab notebook. Runs named are in the order given.
        if (runs.length > 0) {
          const runIds = namedRunIds(store, runs);
          const comparisons = compareWithFirstRuns(store, runIds);
          const note = unpairedRunsNote(store, runIds, comparisons);
          if (note !== undefined) io.stderr(`note: ${note}\n`);
          for (const unfinished of unfinishedRunNotes(store, runIds, databaseFlag(options))) io.stderr(`note: ${unfinished}\n`);
          return renderStoredReport(store, runIds, options.format, { prices, single: runs.length === 1, notes: note === undefined ? [] : [note], comparisons });
        }
        const group = withoutSupersededRuns(options.sweep !== undefined ? sweepRuns(store, options.sweep) : store.listRuns().reverse());
        const note = supersededNote(group.superseded);
        if (note !== undefined) io.stderr(`note: ${note}\n`);
        return renderStoredReport(store, group.runs.map((run) => run.id), options.format, { prices, notes: note === undefined ? [] : [note] });
      });
      if (options.out) {
        const path = await writeOutputFile(io.cwd, options.out, output);
        io.stderr(`wrote ${options.format} report to ${path}\n`);
      } else {
        io.stdout(output);
      }
    });
}

/** The report of stored runs (given oldest first) in a format; `single` prints one run's JSON object. */
export function renderStoredReport(
  store: ResultsStore,
  runIds: readonly string[],
  format: ReportFormat,
  options: {
    prices?: PriceTable; single?: boolean; /** Each run's own console report after the overview (default true). */ runDetails?: boolean;
    /** Said at the top of an HTML report (other formats leave them to the command's stderr). */ notes?: readonly string[];
    /** The runs' paired comparisons, when the caller has made them already (compareWithFirstRuns). */ comparisons?: readonly ReportedComparison[];
  } = {},
): string {
  const reports = runIds.map((runId) => loadRunReport(store, runId));
  if (format === 'csv') return renderCsv(reports);
  const comparisons = options.comparisons ?? compareWithFirstRuns(store, runIds);
  const analysis = analyzeReports(reports, { prices: options.prices });
  return withTransformPairs(store, runIds, format, renderFormat());
  function renderFormat(): string {
    switch (format) {
      case 'table': return renderTable(reports, { comparisons, analysis, runDetails: options.runDetails });
      case 'json': return renderReportJson(reports, { single: options.single ?? false, prices: options.prices, comparisons, analysis });
      case 'html': return renderHtml(reports, { comparisons, analysis, notes: options.notes });
      case 'csv': return renderCsv(reports);
    }
  }
}

/** The runs named on the command line, resolved ('latest', prefixes), in the order given; a run named twice is refused. */
function namedRunIds(store: ResultsStore, runs: readonly string[]): string[] {
  const ids = runs.map((run) => resolveRunId(store, run));
  ids.forEach((id, index) => {
    const first = ids.indexOf(id);
    if (first !== index) {
      throw new ConfigError('config.invalid', `run '${id}' is named twice ('${runs[first]}' and '${runs[index]}')`, { fix: 'name each run once' });
    }
  });
  return ids;
}

/** The runs of a sweep group, oldest first; 'latest' is the group of the newest run that belongs to one. */
export function sweepRuns(store: ResultsStore, group: string): StoredRun[] {
  const runs = store.listRuns();
  const wanted = group === 'latest' ? runs.map((run) => sweepMembershipOf(run.params)?.group).find((candidate) => candidate !== undefined) : group;
  const members = runs.filter((run) => wanted !== undefined && sweepMembershipOf(run.params)?.group === wanted).reverse();
  if (members.length === 0) {
    throw new ConfigError('store.unknown-run', group === 'latest' ? 'there is no sweep in this results database' : `no run belongs to sweep '${group}'`, {
      fix: "start one with 'toolforge sweep <suite> --grid <knob>=<v1>,<v2> --model <ref>' (the sweep prints its group id), or pass --db <file>",
    });
  }
  return members;
}

/**
 * A named run that has not ended, or stopped with work left, is reported as far as it went: said on stderr, with what
 * finishes it, so its figures are not read as a whole run's (the report's own counts show the episodes not run yet).
 */
function unfinishedRunNotes(store: ResultsStore, runIds: readonly string[], database: string): string[] {
  return runIds.flatMap((runId) => {
    const run = store.getRun(runId);
    const status = shownRunStatus(store, run);
    const counts = store.countEpisodes(runId);
    const allTasks = store.hasAllTasks(runId);
    const planned = run.taskCount * run.trials;
    if (isWaitingForWorkers(store, run)) {
      return [`run ${runId} is waiting for workers: ${counts.scored} of its ${planned} episodes scored, so its figures are of what was run; start one with toolforge worker --run ${runId}${database}`];
    }
    if (status === 'running') {
      const scored = allTasks ? `${counts.scored} of its ${planned} episodes scored` : `${counts.scored} episodes scored of the ${planned} planned so far (its tasks are still being stored)`;
      return [`run ${runId} is still running: ${scored}, so its figures are of what was run until now`];
    }
    if (!stoppedWithWorkLeft(store, run, status, counts.scored)) return [];
    const scored = allTasks
      ? `${counts.scored} of its ${planned} episodes scored`
      : `${counts.scored} episodes scored, and it stopped while its tasks were being stored (${run.taskCount} stored)`;
    return [`run ${runId} is ${status}: ${scored}, so its figures are of what it ran; ${finishStoppedRunText(store, run, database)}`];
  });
}

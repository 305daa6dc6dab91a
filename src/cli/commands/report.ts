import type { Command } from 'commander';
import { Option } from 'commander';
import { loadRunReport } from '../../report/load-run-report.ts';
import { renderCsv } from '../../report/render-csv.ts';
import { renderHtml } from '../../report/render-html.ts';
import { renderJson } from '../../report/render-json.ts';
import { renderTable } from '../../report/render-table.ts';
import type { RunReport } from '../../report/run-report.ts';
import type { ReportedComparison } from '../../report/run-comparisons.ts';
import { compareWithFirstRuns } from '../../report/run-comparisons.ts';
import type { CliIo } from '../cli-io.ts';
import { writeOutputFile } from '../write-output-file.ts';
import { openExistingStore, withStore } from '../open-store.ts';
import { resolveDatabasePath } from '../option-parsers.ts';
import { resolveRunId } from './resolve-run-id.ts';

type ReportFormat = 'table' | 'json' | 'csv' | 'html';

export function registerReportCommand(program: Command, io: CliIo): void {
  program
    .command('report')
    .description('report stored runs: pass rate with 95% CI, suite metrics, failures, per-task results')
    .argument('[run]', "a run id (see 'toolforge runs') or 'latest'; default: every run in the database")
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'csv', 'html']).default('table'))
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .action(async (run: string | undefined, options: { format: ReportFormat; out?: string; db?: string }) => {
      const output = await withStore(openExistingStore(resolveDatabasePath(options.db, io.cwd)), (store) => {
        // listRuns is newest first; reports read oldest first, like a lab notebook.
        const runIds = run === undefined ? store.listRuns().map((stored) => stored.id).reverse() : [resolveRunId(store, run)];
        const reports = runIds.map((runId) => loadRunReport(store, runId));
        const comparisons = options.format === 'table' || options.format === 'html' ? compareWithFirstRuns(store, runIds) : [];
        return render(reports, comparisons, options.format, run !== undefined);
      });
      if (options.out) {
        const path = await writeOutputFile(io.cwd, options.out, output);
        io.stderr(`wrote ${options.format} report to ${path}\n`);
      } else {
        io.stdout(output);
      }
    });
}

function render(reports: RunReport[], comparisons: ReportedComparison[], format: ReportFormat, isSingleRun: boolean): string {
  switch (format) {
    case 'table': return renderTable(reports, { comparisons });
    case 'json': return renderJson(reports, { single: isSingleRun });
    case 'csv': return renderCsv(reports);
    case 'html': return renderHtml(reports, { comparisons });
  }
}

import type { ReportTable } from '../suites/spec.ts';
import type { RunReport } from './run-report.ts';
import { summaryObject } from './run-report.ts';
import type { TaskResult } from './task-results.ts';
import { taskResults } from './task-results.ts';

export type RunReportJson = ReturnType<typeof summaryObject> & {
  startedAt: string | null;
  tables: ReportTable[];
  taskResults: TaskResult[];
};

/** The `run --json` summary plus the suite's tables and per-task results. */
export function runReportJson(report: RunReport): RunReportJson {
  return {
    ...summaryObject(report.summary),
    startedAt: report.startedAt,
    tables: report.summary.tables.map((table) => ({ title: table.title, columns: [...table.columns], rows: table.rows.map((row) => [...row]) })),
    taskResults: taskResults(report.episodes),
  };
}

/** One run prints its object; several print an array of them. */
export function renderJson(reports: readonly RunReport[], options: { single: boolean }): string {
  const objects = reports.map(runReportJson);
  return `${JSON.stringify(options.single && objects.length === 1 ? objects[0] : objects, null, 2)}\n`;
}

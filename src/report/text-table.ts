import type { ReportTable } from '../suites/spec.ts';
import { formatCell } from './format-figure.ts';

/** A plain-text table with aligned columns: numbers right-aligned, text left-aligned. */
export function textTable(table: Pick<ReportTable, 'columns' | 'rows'>): string {
  const cells = table.rows.map((row) => table.columns.map((_, index) => formatCell(row[index] ?? null)));
  const isNumeric = table.columns.map((_, index) => table.rows.length > 0
    && table.rows.every((row) => typeof row[index] === 'number' || row[index] === null || row[index] === undefined));
  const widths = table.columns.map((column, index) => Math.max(column.length, ...cells.map((row) => row[index].length)));
  const line = (values: string[]): string => values
    .map((value, index) => (isNumeric[index] ? value.padStart(widths[index]) : value.padEnd(widths[index])))
    .join('  ')
    .trimEnd();
  return [line(table.columns), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

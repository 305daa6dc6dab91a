export * from './run-report.ts';
export * from './task-results.ts';
export * from './format-figure.ts';
export * from './text-table.ts';
export * from './render-table.ts';
export * from './render-json.ts';
export * from './render-csv.ts';
export * from './render-html.ts';

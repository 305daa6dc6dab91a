import { episodesInTaskIdOrder } from './report-episodes.ts';
import type { RunReport } from './run-report.ts';

/** Per-episode columns: one row per (run, task, trial), ready for a spreadsheet or pandas. */
export const csvColumns = [
  'run_id', 'suite', 'model', 'mode', 'task_id', 'trial', 'status', 'passed', 'score', 'failure', 'termination',
  'attempts', 'duration_ms', 'input_tokens', 'output_tokens', 'error',
] as const;

export function renderCsv(reports: readonly RunReport[]): string {
  const lines = [csvColumns.join(',')];
  for (const report of reports) {
    for (const episode of episodesInTaskIdOrder(report.episodes)) {
      const score = episode.status === 'scored' ? episode.score : null;
      lines.push([
        report.summary.runId, report.summary.suite, episode.model, episode.mode, episode.taskId, episode.trial,
        episode.status, score ? score.passed : '', score ? score.value : '', score && !score.passed ? (score.failure ?? 'result.wrong') : '',
        episode.termination ?? '', episode.attempts, episode.durationMs, episode.usage.inputTokens, episode.usage.outputTokens,
        episode.error ? `${episode.error.code}: ${episode.error.message}` : '',
      ].map(csvField).join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** RFC 4180: quote fields holding a comma, quote or line break; double the quotes inside. */
export function csvField(value: string | number | boolean): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

import type { DifficultyCurve } from '../difficulty-curves.ts';
import { formatInterval, formatPercent, sweepPointLabel } from '../format-figure.ts';
import { escapeHtml } from '../render-html.ts';
import type { RunReport } from '../run-report.ts';
import { renderDifficultySection } from './difficulty-section.ts';
import { link, runPath, viewerShell } from './viewer-shell.ts';

/**
 * One sweep (`/sweeps/<group>`): its runs by grid point and model, each linked to its run page, then the
 * report's difficulty charts over the whole group (accuracy along every swept axis, a line per model
 * over its Wilson band) with their tables. `reports` are the group's runs, oldest first.
 */
export function renderSweepPage(group: string, reports: readonly RunReport[], curves: readonly DifficultyCurve[], note?: string, databaseFlag = ''): string {
  const grid = reports[0]?.sweep?.grid ?? {};
  const rows = reports.map(({ summary, sweep }) => `<tr><td>${link(runPath(summary.runId), summary.runId)}</td>`
    + `<td>${escapeHtml(sweepPointLabel(sweep?.point))}</td><td>${escapeHtml(summary.model)}</td><td>${escapeHtml(summary.mode)}</td>`
    + `<td class="number">${summary.episodes}</td><td class="number">${summary.infrastructureErrors}</td>`
    + `<td class="number">${formatPercent(summary.passRate)}</td><td class="interval">${escapeHtml(formatInterval(summary.passRateCI95))}</td></tr>`);
  return viewerShell(`ToolForge sweep ${group}`, [
    `<h1>Sweep ${escapeHtml(group)}</h1>`,
    `<p>Suite <b>${escapeHtml(reports[0]?.summary.suite ?? '')}</b>, grid ${escapeHtml(Object.entries(grid).map(([knob, values]) => `${knob}=${values.map(String).join(',')}`).join(' '))}: `
      + `${reports.length} runs. The same figures as <code>toolforge report --sweep ${escapeHtml(group)}${escapeHtml(databaseFlag)}</code>.</p>`,
    note === undefined ? '' : `<p class="note">Note: ${escapeHtml(note)}</p>`,
    `<table id="sweep-runs"><thead><tr><th>run</th><th>sweep point</th><th>model</th><th>mode</th><th>scored</th><th>infrastructure errors</th><th>pass rate</th><th>95% CI</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`,
    curves.length > 0 ? renderDifficultySection(curves) : '<p>No difficulty axis of this suite takes two or more levels across these runs.</p>',
  ]);
}

import type { DifficultyLevel } from '../../suites/difficulty-axis.ts';
import { difficultyTable, failuresByDifficultyTable } from '../analysis-tables.ts';
import { difficultyChart } from '../charts.ts';
import type { DifficultyCurve } from '../difficulty-curves.ts';
import type { HtmlCell } from '../render-html.ts';
import { escapeHtml, htmlTable } from '../render-html.ts';
import type { StoredRun } from '../../store/stored-run.ts';
import type { SweepMembership } from '../../runner/sweep-membership.ts';
import { episodeQueryString } from './viewer-query.ts';
import { link, runPath, sweepPath, viewerShell } from './viewer-shell.ts';

/**
 * The report's difficulty figures in a viewer page: per curve the chart (a line per model over its Wilson
 * band), the accuracy table and the failures by level. `levelHref` turns a level into a link (the run
 * page's knob filter); without one, or where it gives none, the level is plain text.
 */
export function renderDifficultySection(curves: readonly DifficultyCurve[], levelHref?: (curve: DifficultyCurve, level: DifficultyLevel) => string | undefined): string {
  if (curves.length === 0) return '';
  const parts = ['<section id="difficulty"><h2>Difficulty</h2>'];
  for (const curve of curves) {
    const linked = (level: HtmlCell): HtmlCell => {
      const href = typeof level === 'number' || typeof level === 'string' ? levelHref?.(curve, level) : undefined;
      return href === undefined ? level : { href, text: String(level) };
    };
    const withLinks = (table: { title: string; columns: readonly string[]; rows: readonly (readonly HtmlCell[])[] }) => ({
      ...table, rows: table.rows.map(([level, ...rest]) => [linked(level ?? null), ...rest]),
    });
    const failures = failuresByDifficultyTable(curve);
    parts.push(`<h3>${escapeHtml(curve.suite)}: accuracy by ${escapeHtml(curve.axis)}</h3>`,
      `<figure class="difficulty-chart">${difficultyChart(curve)}</figure>`,
      htmlTable(withLinks(difficultyTable(curve))), ...(failures ? [htmlTable(withLinks(failures))] : []));
  }
  parts.push('</section>');
  return parts.join('\n');
}

/**
 * `/runs/<id>/difficulty`: the run's accuracy along each axis its tasks vary on (a run of several
 * generations, or imported data with per-task statistics), each level a link to the run page filtered to
 * it where the level is a knob value. A run of one sweep point varies on none: its sweep page has the curves.
 */
export function renderRunDifficultyPage(run: StoredRun, curves: readonly DifficultyCurve[], knobAxes: Readonly<Record<string, string>>, sweep?: SweepMembership): string {
  const base = runPath(run.id);
  const levelHref = (curve: DifficultyCurve, level: DifficultyLevel): string | undefined => {
    const knob = knobAxes[curve.axis];
    return knob === undefined ? undefined : `${base}${episodeQueryString({ knobs: { [knob]: String(level) } })}`;
  };
  return viewerShell(`ToolForge run ${run.id}: difficulty`, [
    `<h1>Run ${link(base, run.id)}: accuracy by difficulty</h1>`,
    // Only levels that are knob values link (a filter matches task knobs); a data set's per-task statistics do not.
    `<p>Suite <b>${escapeHtml(run.suite.id)}</b>, model <b>${escapeHtml(run.model)}</b>.${curves.some((curve) => knobAxes[curve.axis] !== undefined)
      ? " Each level of a knob links to the run's episodes at that level." : ''}</p>`,
    curves.length > 0 ? renderDifficultySection(curves, levelHref)
      : `<p>This run's tasks do not vary along any difficulty axis of ${escapeHtml(run.suite.id)}${sweep ? `; its sweep ${link(sweepPath(sweep.group), sweep.group)} charts accuracy across its points` : ''}.</p>`,
  ]);
}

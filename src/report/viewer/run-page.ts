import { wilsonInterval } from '../../metrics/wilson-interval.ts';
import type { EpisodePage, EpisodeQuery, RunOutcomeCounts } from '../../store/episode-query.ts';
import type { StoredRun } from '../../store/stored-run.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { SweepMembership } from '../../runner/sweep-membership.ts';
import { sweepParamsKey } from '../../runner/sweep-membership.ts';
import { formatInterval, formatNumber, formatPercent, sweepPointLabel } from '../format-figure.ts';
import { escapeHtml } from '../render-html.ts';
import { modelSettingsLabel } from '../../models/model-settings-label.ts';
import { transformsLabel } from '../model-variant.ts';
import { runModeLabel } from '../run-mode-label.ts';
import { episodeQueryString } from './viewer-query.ts';
import { resumeCommand } from '../../runner/external-agent-run.ts';
import { rescoreAgainFix, startAgainFix, stoppedRunStatuses } from '../../runner/interrupted-run.ts';
import type { StoppedRunStatus } from '../../runner/interrupted-run.ts';
import { link, runPath, sweepPath, taskPath, viewerShell } from './viewer-shell.ts';

/**
 * How a run stopped with work left is finished: its resume command, or (stopped while storing tasks nothing can make
 * again) starting it over, or (a rescore) rescoring again.
 */
function stoppedNote(run: StoredRun, status: StoppedRunStatus, extras: RunPageExtras): string {
  const why = stoppedRunStatuses[status];
  if (run.provenance.rescoredFrom !== undefined) return ` (${why}, and a rescore stopped part-way is not continued: ${escapeHtml(rescoreAgainFix(run, extras.databaseFlag))})`;
  return extras.tasksLost === true
    ? ` (${why}, and it was stopped while storing tasks that cannot be made again: ${escapeHtml(startAgainFix(run, extras.databaseFlag))})`
    : ` (${why}: finish it with <code>${escapeHtml(resumeCommand(run, extras.databaseFlag))}</code>)`;
}

/** What the run page shows beyond its counts: its suite's difficulty axes (a link to their page) and its sweep. */
export type RunPageExtras = {
  /** The names of the suite's difficulty axes (none: no link to the difficulty page). */
  difficultyAxes?: readonly string[];
  sweep?: SweepMembership;
  /** The status to show, when it is not the stored one (a killed run: 'interrupted'). */
  status?: string;
  /** The ` --db <file>` the commands shown repeat ('' when the viewer reads the default database). */
  databaseFlag?: string;
  /** Stopped while storing its tasks, with nothing to make the rest from: started again, not resumed. */
  tasksLost?: boolean;
  /** How the run stopped with work left (killed, cancelled, failed): the page says what finishes it. */
  stopped?: StoppedRunStatus;
};

/**
 * One run: its figures (SQL counts), failures by code (each a filter link), links to its accuracy by
 * difficulty and its sweep, a filter form (outcome, failure code, knob values, task id or glob, text
 * search) and one page of matching episodes.
 */
export function renderRunPage(run: StoredRun, counts: RunOutcomeCounts, query: EpisodeQuery, page: EpisodePage, extras: RunPageExtras = {}): string {
  const base = runPath(run.id);
  const failures = Object.entries(counts.failures).sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]));
  const knobNames = Object.keys(run.params).filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !isObject(run.params[name])).sort();
  const rows = page.episodes.map((episode) => {
    const score = episode.status === 'scored' ? episode.score : null;
    const verdict = score ? (score.passed ? 'passed' : 'failed') : episode.status;
    const href = `${taskPath(run.id, episode.taskId)}${episodeQueryString({ ...query, limit: undefined, offset: undefined })}#trial-${episode.trial}`;
    return `<tr class="${score ? verdict : 'unscored'}"><td>${link(href, episode.taskId)}</td><td class="number">${episode.trial}</td>`
      + `<td class="verdict">${escapeHtml(verdict)}</td><td>${escapeHtml(score && !score.passed ? (score.failure ?? 'result.wrong') : '')}</td>`
      + `<td class="number">${score ? formatNumber(score.value) : ''}</td><td>${escapeHtml(episode.termination ?? '')}</td>`
      + `<td class="number">${episode.durationMs}</td><td class="number">${episode.usage.inputTokens + episode.usage.outputTokens}</td></tr>`;
  });
  const first = page.total === 0 ? 0 : page.offset + 1;
  const last = page.offset + page.episodes.length;
  const pager = [
    page.offset > 0 ? link(`${base}${episodeQueryString(query, { offset: Math.max(0, page.offset - page.limit) })}`, '← previous page', 'rel="prev"') : '',
    `<span>episodes ${first}–${last} of ${page.total}</span>`,
    last < page.total ? link(`${base}${episodeQueryString(query, { offset: page.offset + page.limit })}`, 'next page →', 'rel="next"') : '',
  ].join('');
  const selected = (value: string | undefined, option: string) => (value === option ? ' selected' : '');
  const settings = modelSettingsLabel(run.baseUrl, run.settings);
  return viewerShell(`ToolForge run ${run.id}`, [
    `<h1>Run ${escapeHtml(run.id)}</h1>`,
    `<p>Suite <b>${escapeHtml(run.suite.id)}</b> ${escapeHtml(run.suite.version)}, model <b>${escapeHtml(run.model)}</b>${settings === '' ? '' : ` (${escapeHtml(settings)})`}, `
      + `mode <b>${escapeHtml(runModeLabel(run))}</b>, status ${escapeHtml(extras.status ?? run.status)}${extras.stopped !== undefined ? stoppedNote(run, extras.stopped, extras) : ''}, started ${escapeHtml(run.createdAt)}. `
      + `${run.taskCount} tasks × ${run.trials} trials; ${counts.scored} scored, ${counts.passed} passed`
      + (counts.scored > 0 ? ` (<b>${formatPercent(counts.passed / counts.scored)}</b>, 95% CI ${formatInterval(wilsonInterval(counts.passed, counts.scored))})` : '')
      + `, ${counts.infrastructureErrors} infrastructure errors, ${counts.cancelled} cancelled.</p>`,
    `<p>Knobs: ${escapeHtml(JSON.stringify(knobsOnly(run.params)))}. ${link(`${base}/report`, 'Full report of this run')} (suite tables and metrics).</p>`,
    (run.provenance.transforms ?? []).length > 0
      ? `<p>Transforms: <b>${escapeHtml(transformsLabel(run.provenance.transforms))}</b> (each task derived from its origin task, in this order).</p>` : '',
    run.provenance.rescoredFrom ? `<p>Rescored from ${link(runPath(run.provenance.rescoredFrom), run.provenance.rescoredFrom)}.</p>` : '',
    extras.sweep ? `<p>Point ${escapeHtml(sweepPointLabel(extras.sweep.point))} of sweep ${link(sweepPath(extras.sweep.group), extras.sweep.group)} (its difficulty charts).</p>` : '',
    (extras.difficultyAxes ?? []).length > 0
      ? `<p>${link(`${base}/difficulty`, 'Accuracy by difficulty')} along ${escapeHtml((extras.difficultyAxes ?? []).join(', '))}, where this run's tasks vary (reads every task).</p>` : '',
    failures.length === 0 ? '<p>No failed episodes.</p>' : `<table id="failures"><caption>Failures</caption><thead><tr><th>failure</th><th>episodes</th></tr></thead><tbody>${
      failures.map(([code, count]) => `<tr><td>${link(`${base}${episodeQueryString({ outcome: 'failed', failure: code })}`, code)}</td><td class="number">${count}</td></tr>`).join('')}</tbody></table>`,
    `<form class="filters" method="get" action="${escapeHtml(base)}">`,
    `<label>result<select name="outcome"><option value="">any</option><option value="passed"${selected(query.outcome, 'passed')}>passed</option>`
      + `<option value="failed"${selected(query.outcome, 'failed')}>failed</option></select></label>`,
    `<label>failure code<select name="failure"><option value="">any</option>${failures.map(([code]) => `<option${selected(query.failure, code)}>${escapeHtml(code)}</option>`).join('')}</select></label>`,
    `<label>status<select name="status"><option value="">any</option>${['scored', 'infrastructure-error', 'cancelled'].map((status) => `<option${selected(query.status, status)}>${status}</option>`).join('')}</select></label>`,
    ...knobNames.map((name) => `<label>knob ${escapeHtml(name)}<input name="knob.${escapeHtml(name)}" size="6" value="${escapeHtml(query.knobs?.[name] ?? '')}" placeholder="${escapeHtml(String(run.params[name]))}"></label>`),
    `<label>task id or glob<input name="task" value="${escapeHtml(query.task ?? '')}" placeholder="${escapeHtml(run.suite.id)}/*"></label>`,
    `<label>search<input name="search" value="${escapeHtml(query.search ?? '')}" placeholder="text in the task"></label>`,
    '<button type="submit">filter</button>',
    `${link(base, 'clear')} ${link(`${base}?outcome=failed`, 'failed only')}`,
    '</form>',
    `<nav class="pager">${pager}</nav>`,
    `<table id="episodes"><thead><tr><th>task</th><th>trial</th><th>result</th><th>failure</th><th>score</th><th>termination</th><th>ms</th><th>tokens</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`,
  ]);
}

function isObject(value: JsonValue | undefined): boolean {
  return typeof value === 'object' && value !== null;
}

/** The run's knob values, without the sweep membership recorded beside them. */
function knobsOnly(params: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(params).filter(([name]) => name !== sweepParamsKey));
}

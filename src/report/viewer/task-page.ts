import type { EpisodeRecord } from '../../core/episode.ts';
import type { Task } from '../../core/task.ts';
import type { EpisodeQuery } from '../../store/episode-query.ts';
import type { StoredRun } from '../../store/stored-run.ts';
import { escapeHtml } from '../render-html.ts';
import { renderEpisode } from './episode-view.ts';
import { renderGoldSolution } from './gold-solution.ts';
import { episodeQueryString } from './viewer-query.ts';
import { link, runPath, taskPath, viewerShell } from './viewer-shell.ts';

export type TaskNavigation = {
  /** The filter the user came from; prev/next move through the tasks it matches. */
  query: EpisodeQuery;
  matching: readonly string[];
  /** Tasks with a failed scored trial, for failed-only navigation. */
  failed: readonly string[];
  /** Other runs holding this task, for the side-by-side link. */
  otherRuns: readonly StoredRun[];
};

/** Every trial of one task: the gold next to each trial's transcript, the failing call highlighted. */
export function renderTaskPage(run: StoredRun, taskId: string, task: Task | undefined, episodes: readonly EpisodeRecord[], navigation: TaskNavigation): string {
  const filter = episodeQueryString({ ...navigation.query, limit: undefined, offset: undefined });
  const step = (list: readonly string[], direction: -1 | 1, label: string, rel: string, keep: string) => {
    const position = list.indexOf(taskId);
    const target = position >= 0 ? list[position + direction] : (direction === 1 ? list.find((id) => id > taskId) : [...list].reverse().find((id) => id < taskId));
    return target === undefined ? `<span class="disabled">${escapeHtml(label)}</span>` : link(`${taskPath(run.id, target)}${keep}`, label, `rel="${rel}"`);
  };
  const failedFilter = episodeQueryString({ outcome: 'failed' });
  const compare = navigation.otherRuns.length === 0 ? '' : [
    '<form class="filters" method="get" action="/compare">',
    `<input type="hidden" name="a" value="${escapeHtml(run.id)}"><input type="hidden" name="task" value="${escapeHtml(taskId)}">`,
    `<label>side by side with run<select name="b">${navigation.otherRuns.map((other) => `<option value="${escapeHtml(other.id)}">${escapeHtml(`${other.id} (${other.model})`)}</option>`).join('')}</select></label>`,
    '<button type="submit">compare</button></form>',
  ].join('');
  return viewerShell(`ToolForge ${run.id} ${taskId}`, [
    `<p>${link(`${runPath(run.id)}${filter}`, `run ${run.id}`)} · model <b>${escapeHtml(run.model)}</b></p>`,
    `<h1>Task ${escapeHtml(taskId)}</h1>`,
    `<nav class="pager" id="task-nav">${step(navigation.matching, -1, '← previous', 'prev', filter)}${step(navigation.matching, 1, 'next →', 'next', filter)}`
      + `${step(navigation.failed, -1, '← previous failed', 'prev-failed', failedFilter)}${step(navigation.failed, 1, 'next failed →', 'next-failed', failedFilter)}</nav>`,
    compare,
    task ? `<p><small>knobs ${escapeHtml(JSON.stringify(task.params))} · stats ${escapeHtml(JSON.stringify(task.stats))}</small></p>` : '',
    '<div class="columns">',
    `<div>${task ? renderGoldSolution(task) : '<p>This task is not stored with the run.</p>'}</div>`,
    `<div>${episodes.length === 0 ? '<p>No episode of this task is stored in this run.</p>' : episodes.map(renderEpisode).join('\n')}</div>`,
    '</div>',
  ]);
}

import type { EpisodeRecord } from '../../core/episode.ts';
import type { Task } from '../../core/task.ts';
import type { EpisodeOutcome } from '../../store/episode-query.ts';
import type { StoredRun } from '../../store/stored-run.ts';
import { escapeHtml } from '../render-html.ts';
import { renderEpisode } from './episode-view.ts';
import { renderGoldSolution } from './gold-solution.ts';
import { link, runPath, taskPath, viewerShell } from './viewer-shell.ts';

/** Per task, how many scored trials passed in each run. */
type TaskTally = { taskId: string; a: { passed: number; scored: number }; b: { passed: number; scored: number } };

function tally(outcomes: readonly EpisodeOutcome[]): Map<string, { passed: number; scored: number }> {
  const byTask = new Map<string, { passed: number; scored: number }>();
  for (const outcome of outcomes) {
    const counts = byTask.get(outcome.taskId) ?? { passed: 0, scored: 0 };
    if (outcome.status === 'scored' && outcome.score) {
      counts.scored += 1;
      if (outcome.score.passed) counts.passed += 1;
    }
    byTask.set(outcome.taskId, counts);
  }
  return byTask;
}

/**
 * Which tasks of two runs are the same task: A's task id -> B's, paired as reports pair them (same content, or a
 * derived task with the task it came from); `sameIdOtherTask` counts ids both runs have for different tasks (other
 * knobs or seeds), which are not compared.
 */
export type TaskPairing = { pairs: ReadonlyMap<string, string>; sameIdOtherTask: number };

/** The tasks two runs share, each linking to its side-by-side page; by default only those whose results differ. */
export function renderCompareList(a: StoredRun, b: StoredRun, outcomesA: readonly EpisodeOutcome[], outcomesB: readonly EpisodeOutcome[], only: 'differ' | 'all', pairing: TaskPairing): string {
  const tallyA = tally(outcomesA);
  const tallyB = tally(outcomesB);
  const empty = { passed: 0, scored: 0 };
  const rows: TaskTally[] = [...pairing.pairs.keys()].filter((taskId) => tallyA.has(taskId) || tallyB.has(pairing.pairs.get(taskId)!)).sort()
    .map((taskId) => ({ taskId, a: tallyA.get(taskId) ?? empty, b: tallyB.get(pairing.pairs.get(taskId)!) ?? empty }))
    .filter((row) => only === 'all' || rate(row.a) !== rate(row.b));
  const href = (taskId: string) => `/compare?${new URLSearchParams({ a: a.id, b: b.id, task: taskId }).toString()}`;
  return viewerShell(`ToolForge ${a.id} vs ${b.id}`, [
    `<h1>${escapeHtml(a.id)} vs ${escapeHtml(b.id)}</h1>`,
    `<p>${link(runPath(a.id), a.id)} (${escapeHtml(a.model)}) against ${link(runPath(b.id), b.id)} (${escapeHtml(b.model)}): `
      + `${rows.length} ${only === 'differ' ? 'shared tasks whose results differ' : 'shared tasks'}. `
      + link(`/compare?${new URLSearchParams({ a: a.id, b: b.id, only: only === 'differ' ? 'all' : 'differ' }).toString()}`, only === 'differ' ? 'show all shared tasks' : 'show only differences')
      + '</p>',
    pairing.sameIdOtherTask === 0 ? '' : `<p class="note">Note: ${pairing.sameIdOtherTask} task id(s) name different tasks in the two runs (other knobs or seeds): they are not compared.</p>`,
    `<table id="compare"><thead><tr><th>task</th><th>${escapeHtml(a.model)} passed</th><th>${escapeHtml(b.model)} passed</th></tr></thead><tbody>\n${
      rows.map((row) => `<tr><td>${link(href(row.taskId), row.taskId)}</td><td class="number">${row.a.passed}/${row.a.scored}</td><td class="number">${row.b.passed}/${row.b.scored}</td></tr>`).join('\n')}\n</tbody></table>`,
  ]);
}

/** One task from two runs (`taskIdB`: its id in b, a derived task's own), side by side, with the gold above both. */
export function renderComparePage(a: StoredRun, b: StoredRun, taskId: string, taskIdB: string, task: Task | undefined, episodesA: readonly EpisodeRecord[], episodesB: readonly EpisodeRecord[]): string {
  const column = (run: StoredRun, episodes: readonly EpisodeRecord[]) => `<div class="side"><h2>${link(taskPath(run.id, run === b ? taskIdB : taskId), run.id)}</h2>`
    + `<p>model <b>${escapeHtml(run.model)}</b></p>${episodes.length === 0 ? '<p>No episode of this task in this run.</p>' : episodes.map(renderEpisode).join('\n')}</div>`;
  return viewerShell(`ToolForge ${taskId}: ${a.id} vs ${b.id}`, [
    `<p>${link(`/compare?${new URLSearchParams({ a: a.id, b: b.id }).toString()}`, 'tasks that differ')}</p>`,
    `<h1>Task ${escapeHtml(taskId)}</h1>`,
    task ? renderGoldSolution(task) : '',
    `<div class="columns" id="side-by-side">${column(a, episodesA)}${column(b, episodesB)}</div>`,
  ]);
}

function rate(counts: { passed: number; scored: number }): number {
  return counts.scored === 0 ? -1 : counts.passed / counts.scored;
}

import type { EpisodeRecord } from '../core/episode.ts';
import type { Message } from '../core/message.ts';
import { renderToolResult } from '../core/message.ts';
import { formatNumber } from './format-figure.ts';
import { escapeHtml, pageShell } from './render-html.ts';

/**
 * Every trial of one task as a page: the judgement (score, failure, termination, error) and the
 * whole conversation, tool calls with their exact argument text and the results the model saw.
 */
export function renderTaskTranscripts(runId: string, taskId: string, episodes: readonly EpisodeRecord[]): string {
  const trials = episodes.filter((episode) => episode.taskId === taskId).sort((left, right) => left.trial - right.trial);
  const body = [
    `<p><a href="/runs/${encodeURIComponent(runId)}">run ${escapeHtml(runId)}</a></p>`,
    `<h1>Task ${escapeHtml(taskId)}</h1>`,
    ...(trials.length === 0 ? ['<p>No episode of this task is stored in this run.</p>'] : trials.map(renderEpisode)),
  ];
  return pageShell(`ToolForge ${runId} ${taskId}`, body);
}

function renderEpisode(episode: EpisodeRecord): string {
  const score = episode.score;
  const verdict = episode.status !== 'scored' || !score
    ? `<b>${escapeHtml(episode.status)}</b>${episode.error ? `: ${escapeHtml(episode.error.code)}: ${escapeHtml(episode.error.message)}` : ''}`
    : `<b>${score.passed ? 'passed' : 'failed'}</b>, score ${formatNumber(score.value)}${score.failure ? `, ${escapeHtml(score.failure)}` : ''}: ${escapeHtml(score.reason)}`;
  return [
    `<section><h2>Trial ${episode.trial}</h2>`,
    `<p>${verdict}</p>`,
    `<p>model ${escapeHtml(episode.model)}, mode ${escapeHtml(episode.mode)}, termination ${escapeHtml(episode.termination ?? 'none')}, `
      + `${episode.attempts} attempt(s), ${episode.durationMs} ms, ${episode.usage.inputTokens} input / ${episode.usage.outputTokens} output tokens</p>`,
    ...episode.messages.map(renderMessage),
    '</section>',
  ].join('\n');
}

function renderMessage(message: Message): string {
  switch (message.role) {
    case 'system':
    case 'user':
      return `<div class="message ${message.role}"><b>${message.role}</b><pre>${escapeHtml(message.content)}</pre></div>`;
    case 'assistant': {
      const calls = message.toolCalls.map((call) => `<pre class="call">${escapeHtml(call.name)}(${escapeHtml(call.argumentsText)})`
        + `${call.parseError ? `  <- unparsable: ${escapeHtml(call.parseError)}` : ''}</pre>`);
      const text = message.content === '' ? '' : `<pre>${escapeHtml(message.content)}</pre>`;
      return `<div class="message assistant"><b>assistant</b>${text}${calls.join('')}</div>`;
    }
    case 'tool':
      return `<div class="message tool ${message.result.ok ? 'ok' : 'error'}"><b>tool ${escapeHtml(message.toolName)}</b>`
        + `<pre>${escapeHtml(renderToolResult(message.result))}</pre></div>`;
  }
}

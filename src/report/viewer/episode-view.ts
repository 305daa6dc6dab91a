import type { EpisodeRecord } from '../../core/episode.ts';
import type { Message } from '../../core/message.ts';
import { renderToolResult } from '../../core/message.ts';
import { formatNumber } from '../format-figure.ts';
import { escapeHtml } from '../render-html.ts';
import { prettyValue } from './gold-solution.ts';

/**
 * Where an episode went wrong, for highlighting: the first tool call whose result was an error, or (a
 * failed episode without one) the last assistant message, whose answer or calls were judged wrong.
 */
export function failingMessageIndex(episode: EpisodeRecord): { index: number; callId?: string } | undefined {
  const failedToolResult = episode.messages.findIndex((message) => message.role === 'tool' && !message.result.ok);
  if (failedToolResult >= 0) {
    const result = episode.messages[failedToolResult] as Extract<Message, { role: 'tool' }>;
    const callIndex = lastIndex(episode.messages, (message, index) => index < failedToolResult && message.role === 'assistant'
      && message.toolCalls.some((call) => call.id === result.toolCallId));
    return { index: callIndex >= 0 ? callIndex : failedToolResult, callId: result.toolCallId };
  }
  if (episode.status !== 'scored' || !episode.score || episode.score.passed) return undefined;
  const lastAssistant = lastIndex(episode.messages, (message) => message.role === 'assistant');
  return lastAssistant >= 0 ? { index: lastAssistant } : undefined;
}

function lastIndex<T>(items: readonly T[], predicate: (item: T, index: number) => boolean): number {
  for (let index = items.length - 1; index >= 0; index -= 1) if (predicate(items[index], index)) return index;
  return -1;
}

/** One trial: verdict, the scorer's details (webapi's captured request and its comparison), the transcript. */
export function renderEpisode(episode: EpisodeRecord): string {
  const score = episode.score;
  const verdict = episode.status !== 'scored' || !score
    ? `<b>${escapeHtml(episode.status)}</b>${episode.error ? `: ${escapeHtml(episode.error.code)}: ${escapeHtml(episode.error.message)}` : ''}`
    : `<b class="verdict-${score.passed ? 'passed' : 'failed'}">${score.passed ? 'passed' : 'failed'}</b>, score ${formatNumber(score.value)}`
      + `${score.failure ? `, <code>${escapeHtml(score.failure)}</code>` : ''}: ${escapeHtml(score.reason)}`;
  const failing = failingMessageIndex(episode);
  const details = score?.details;
  return [
    `<section class="episode" id="trial-${episode.trial}"><h3>Trial ${episode.trial}</h3>`,
    `<p>${verdict}</p>`,
    `<p><small>model ${escapeHtml(episode.model)}, mode ${escapeHtml(episode.mode)}, termination ${escapeHtml(episode.termination ?? 'none')}, `
      + `${episode.attempts} attempt(s), ${episode.durationMs} ms, ${episode.usage.inputTokens} input / ${episode.usage.outputTokens} output tokens</small></p>`,
    details && Object.keys(details).length > 0
      ? `<details class="panel scorer"${score && !score.passed ? ' open' : ''}><summary>scorer details (what the model produced, as judged)</summary><pre>${escapeHtml(prettyValue(details))}</pre></details>`
      : '',
    ...episode.messages.map((message, index) => renderMessage(message, index === failing?.index ? failing : undefined)),
    '</section>',
  ].join('\n');
}

function renderMessage(message: Message, failing: { callId?: string } | undefined): string {
  switch (message.role) {
    case 'system':
    case 'user':
      return `<div class="message ${message.role}"><b>${message.role}</b><pre>${escapeHtml(message.content)}</pre></div>`;
    case 'assistant': {
      const calls = message.toolCalls.map((call) => {
        const isFailing = failing !== undefined && (failing.callId === undefined || failing.callId === call.id);
        return `<pre class="call${isFailing ? ' failing' : ''}"${isFailing ? ' data-failing="call"' : ''}>${escapeHtml(call.name)}(${escapeHtml(call.argumentsText)})`
          + `${call.parseError ? `  <- unparsable: ${escapeHtml(call.parseError)}` : ''}</pre>`;
      });
      const text = message.content === '' ? '' : `<pre${failing && message.toolCalls.length === 0 ? ' class="failing" data-failing="answer"' : ''}>${escapeHtml(message.content)}</pre>`;
      return `<div class="message assistant"><b>assistant</b>${text}${calls.join('')}</div>`;
    }
    case 'tool':
      return `<div class="message tool ${message.result.ok ? 'ok' : 'error'}"><b>tool ${escapeHtml(message.toolName)}</b>`
        + `<pre>${escapeHtml(renderToolResult(message.result))}</pre></div>`;
  }
}

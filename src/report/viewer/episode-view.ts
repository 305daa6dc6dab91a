import type { EpisodeRecord } from '../../core/episode.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
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
  // Any suite's details, as stored: a JSON object (the store parsed it), shown as it is.
  const stored = score?.details;
  const details = isJsonObject(stored) ? stored : undefined;
  const comparisonTable = details ? renderExpectedVersusActual(details) : '';
  return [
    `<section class="episode" id="trial-${episode.trial}"><h3>Trial ${episode.trial}</h3>`,
    `<p>${verdict}</p>`,
    `<p><small>model ${escapeHtml(episode.model)}, mode ${escapeHtml(episode.mode)}, termination ${escapeHtml(episode.termination ?? 'none')}, `
      + `${episode.attempts} attempt(s), ${episode.durationMs} ms, ${episode.usage.inputTokens} input / ${episode.usage.outputTokens} output tokens</small></p>`,
    comparisonTable,
    details && Object.keys(details).length > 0
      ? `<details class="panel scorer"${score && !score.passed && comparisonTable === '' ? ' open' : ''}><summary>scorer details (what the model produced, as judged)</summary><pre>${escapeHtml(prettyValue(details))}</pre></details>`
      : '',
    ...episode.messages.map((message, index) => renderMessage(message, index === failing?.index ? failing : undefined)),
    '</section>',
  ].join('\n');
}

type Comparison = { label: string; expected: JsonValue | undefined; actual: JsonValue | undefined; verdict: string };

/**
 * Scorers that compare what the model produced with the gold field by field (webapi compares the captured
 * request's URL, method and every header, parameter and body field) record `{expected, actual, verdict}`
 * objects in their details; any such object, at any depth, becomes a row of one expected-versus-actual table,
 * mismatches highlighted. A suite gets this view by recording its comparisons in that shape.
 */
export function collectComparisons(value: JsonValue | undefined, path: string[] = [], found: Comparison[] = []): Comparison[] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      const name = isJsonObject(item) && typeof item.name === 'string' ? [typeof item.field === 'string' ? `${item.field}.${item.name}` : item.name] : [String(index)];
      collectComparisons(item, [...path, ...name], found);
    });
  } else if (isJsonObject(value)) {
    if ('expected' in value && 'actual' in value) {
      found.push({ label: path.join('.') || 'value', expected: value.expected, actual: value.actual, verdict: typeof value.verdict === 'string' ? value.verdict : (JSON.stringify(value.expected) === JSON.stringify(value.actual) ? 'correct' : 'wrong') });
    } else {
      for (const [key, child] of Object.entries(value)) collectComparisons(child, [...path, key], found);
    }
  }
  return found;
}

function renderExpectedVersusActual(details: JsonObject): string {
  const comparisons = collectComparisons(details);
  if (comparisons.length === 0) return '';
  const cell = (value: JsonValue | undefined) => `<td><pre>${value === undefined || value === null ? '<i>absent</i>' : escapeHtml(typeof value === 'string' ? value : JSON.stringify(value))}</pre></td>`;
  const rows = comparisons.map((comparison) => {
    const wrong = comparison.verdict !== 'correct';
    return `<tr${wrong ? ' class="failing"' : ''}><td>${escapeHtml(comparison.label.replace(/^comparison\./, ''))}</td>${cell(comparison.expected)}${cell(comparison.actual)}<td>${escapeHtml(comparison.verdict)}</td></tr>`;
  });
  return `<table class="expected-actual"><caption>What the model produced next to the gold</caption><thead><tr><th>field</th><th>expected</th><th>actual (captured)</th><th>verdict</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
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

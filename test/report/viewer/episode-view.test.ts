import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EpisodeRecord } from '../../../src/core/episode.ts';
import { collectComparisons, failingMessageIndex, renderEpisode } from '../../../src/report/viewer/episode-view.ts';

const base: EpisodeRecord = {
  schemaVersion: 1, runId: 'r', taskId: 't', model: 'm', mode: 'calls', trial: 0, status: 'scored', termination: 'final-answer',
  finalState: null, calls: [], warnings: [],
  messages: [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'first', argumentsText: '{}', arguments: {} }, { id: 'b', name: 'second', argumentsText: '{"x":1}', arguments: { x: 1 } }] },
    { role: 'tool', toolCallId: 'a', toolName: 'first', result: { ok: true, output: 1 } },
    { role: 'tool', toolCallId: 'b', toolName: 'second', result: { ok: false, error: { code: 'arguments.invalid', message: 'x must be a string' } } },
    { role: 'assistant', content: 'gave up', toolCalls: [] },
  ],
  score: { value: 0, passed: false, reason: 'wrong', failure: 'arguments.invalid' },
  usage: { inputTokens: 0, outputTokens: 0 }, attempts: 1, startedAt: '', endedAt: '', durationMs: 1, error: null,
};

test('the failing call is the one whose tool result was an error, else the final answer of a failed episode', () => {
  assert.deepEqual(failingMessageIndex(base), { index: 1, callId: 'b' });
  const html = renderEpisode(base);
  assert.match(html, /<pre class="call failing" data-failing="call">second\(\{&quot;x&quot;:1\}\)/);
  assert.doesNotMatch(html, /<pre class="call failing"[^>]*>first/);
  const noToolError = { ...base, messages: [base.messages[0], base.messages[4]] };
  assert.deepEqual(failingMessageIndex(noToolError), { index: 1 });
  assert.match(renderEpisode(noToolError), /<pre class="failing" data-failing="answer">gave up<\/pre>/);
  assert.equal(failingMessageIndex({ ...noToolError, score: { value: 1, passed: true, reason: 'ok' } }), undefined);
});

test('expected-versus-actual rows come from {expected, actual, verdict} objects at any depth, mismatches marked', () => {
  const details = {
    api: 'asana',
    comparison: {
      url: { expected: 'https://x/a', actual: 'https://x/b', verdict: 'wrong' },
      method: { expected: 'get', actual: 'get', verdict: 'correct' },
      arguments: [{ field: 'params', name: 'limit', expected: 50, actual: null, verdict: 'missing' }],
    },
  };
  assert.deepEqual(collectComparisons(details).map((row) => [row.label, row.verdict]), [
    ['comparison.url', 'wrong'], ['comparison.method', 'correct'], ['comparison.arguments.params.limit', 'missing'],
  ]);
  const html = renderEpisode({ ...base, score: { ...base.score!, details } });
  assert.match(html, /<tr class="failing"><td>url<\/td><td><pre>https:\/\/x\/a<\/pre><\/td><td><pre>https:\/\/x\/b<\/pre><\/td><td>wrong<\/td><\/tr>/);
  assert.match(html, /<tr><td>method<\/td>/);
  assert.match(html, /<td>arguments\.params\.limit<\/td><td><pre>50<\/pre><\/td><td><pre><i>absent<\/i><\/pre><\/td>/);
});

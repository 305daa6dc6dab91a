/**
 * Issue 14 item 4 at the store: a score reason and transcript contents that a model or a program controls are
 * capped when saved (src/core/cap-text.ts), with the full length kept in the marker; small ones are untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fullTextLength, textCaps } from '../../src/core/cap-text.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { sampleEpisode, sampleRun, temporaryDirectory } from './test-helpers.ts';

test('huge reasons, contents, argument texts and tool outputs are stored capped; small ones unchanged', async () => {
  const path = join(temporaryDirectory(), 'results.db');
  const tasks = await createFakeSuite().generate({ seed: 1, count: 2, params: {} });
  const store = openResultsStore(path);
  store.createRun(sampleRun('run-caps'), tasks);
  const huge = (letter: string): string => letter.repeat(20_000_000);
  const hugeArguments = JSON.stringify({ text: huge('a') });
  store.saveEpisode(sampleEpisode('run-caps', tasks[0].id, 0, {
    messages: [
      { role: 'user', content: huge('u') },
      { role: 'assistant', content: huge('c'), reasoning: huge('r'), toolCalls: [{ id: 'call_1', name: 'add', argumentsText: hugeArguments, arguments: { text: huge('a') } }] },
      { role: 'tool', toolCallId: 'call_1', toolName: 'add', result: { ok: true, output: { text: huge('o') } } },
      { role: 'tool', toolCallId: 'call_2', toolName: 'add', result: { ok: false, error: { code: 'execution.error', message: huge('e') } } },
    ],
    score: { value: 0, passed: false, reason: `the program threw: ${huge('x')}`, failure: 'execution.error' },
  }));
  const small = sampleEpisode('run-caps', tasks[1].id, 0);
  store.saveEpisode(small);
  const [capped, untouched] = store.listEpisodes('run-caps');
  store.close();

  assert.ok(statSync(path).size < 2_000_000, `results file ${statSync(path).size} bytes`);
  assert.ok(capped.score!.reason.length <= textCaps.message);
  assert.equal(fullTextLength(capped.score!.reason), 'the program threw: '.length + 20_000_000);
  const [user, assistant, output, error] = capped.messages;
  assert.ok(user.role === 'user' && user.content.length <= textCaps.content && fullTextLength(user.content) === 20_000_000);
  assert.ok(assistant.role === 'assistant');
  assert.equal(fullTextLength(assistant.content), 20_000_000);
  assert.equal(fullTextLength(assistant.reasoning!), 20_000_000);
  assert.equal(fullTextLength(assistant.toolCalls[0].argumentsText), hugeArguments.length);
  assert.equal(assistant.toolCalls[0].arguments, undefined);
  assert.ok(output.role === 'tool' && output.result.ok && typeof output.result.output === 'string');
  assert.equal(fullTextLength(output.result.output as string), JSON.stringify({ text: huge('o') }).length);
  assert.ok(error.role === 'tool' && !error.result.ok && fullTextLength(error.result.error.message) === 20_000_000);
  assert.deepEqual(untouched.messages, small.messages);
  assert.deepEqual(untouched.score, small.score);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseReactStep } from '../../src/core/react-format.ts';

test('a react step is read from the lines that start with its keywords, blank lines and indentation around them', () => {
  assert.deepEqual(parseReactStep('Thought: add them\n\n\n  Action: add\n\tAction Input: {"a": 1}\n\n\nObservation: 2'),
    { type: 'action', thought: 'add them', action: 'add', actionInputText: '{"a": 1}' });
  assert.deepEqual(parseReactStep('\n\n   Thought: done\n\nFinal Answer: 42\n'), { type: 'finish', thought: 'done', answer: '42' });
  assert.equal(parseReactStep('no step here\n\n\n'), undefined);
  assert.deepEqual(parseReactStep('Action: `search`\r\nAction Input: ```json\n{"q": "x"}\n```\r\n'), { type: 'action', thought: '', action: 'search', actionInputText: '{"q": "x"}' });
});

test('a runaway reply of blank lines is read in one pass: 200,000 of them give the same step as 2', () => {
  // The parser used to re-read the blank lines after every line start (quadratic): 40,000 took 8.6 s of the main thread.
  for (const blank of [2, 200_000]) {
    assert.equal(parseReactStep(`${' \n'.repeat(blank)}x`), undefined);
    assert.deepEqual(parseReactStep(`Action: f\nAction Input: {"a": 1}${'\n \n'.repeat(blank)}Observation: y`), { type: 'action', thought: '', action: 'f', actionInputText: '{"a": 1}' });
  }
});

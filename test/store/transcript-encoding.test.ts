import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../../src/core/message.ts';
import { compressionThresholdBytes, decodeTranscript, encodeTranscript } from '../../src/store/transcript-encoding.ts';

const system = { role: 'system' as const, content: 'tools: '.repeat(600) };
const prompt: Message[] = [system, { role: 'user', content: 'add 2 and 3' }];
const answer: Message = { role: 'assistant', content: '5', toolCalls: [] };

test('the leading messages equal to the task prompt are counted, not stored, and come back from the prompt', () => {
  const messages = [...prompt, answer];
  const whole = encodeTranscript(messages);
  assert.deepEqual([whole.encoding, whole.promptMessages], ['gzip', 0]);
  const compact = encodeTranscript(messages, prompt);
  // Only the answer is left: short enough to stay readable JSON, the text JSON.stringify gives.
  assert.deepEqual(compact, { encoding: 'json', data: JSON.stringify([answer]), promptMessages: 2 });
  assert.deepEqual(decodeTranscript(compact.encoding, compact.data, compact.promptMessages, prompt), messages);
  assert.deepEqual(decodeTranscript(whole.encoding, whole.data), messages);
});

test('a transcript that leaves the prompt keeps every message from the first difference', () => {
  const paraphrased: Message[] = [prompt[0], { role: 'user', content: 'what is 2 plus 3?' }, answer];
  const encoded = encodeTranscript(paraphrased, prompt);
  assert.equal(encoded.promptMessages, 1);
  assert.deepEqual(decodeTranscript(encoded.encoding, encoded.data, encoded.promptMessages, prompt), paraphrased);
  // Same content, other key order: not the same stored text, so not taken from the prompt.
  const reordered = encodeTranscript([{ content: system.content, role: 'system' } as Message, answer], prompt);
  assert.equal(reordered.promptMessages, 0);
  assert.ok(Buffer.byteLength(JSON.stringify(prompt[0])) >= compressionThresholdBytes);
});

test('a row counting more prompt messages than its task has is store.invalid, naming the episode', () => {
  const encoded = encodeTranscript([...prompt, answer], prompt);
  assert.throws(() => decodeTranscript(encoded.encoding, encoded.data, encoded.promptMessages, prompt.slice(0, 1), "task 't1' trial 0"),
    (error: Error & { code?: string }) => error.code === 'store.invalid' && /task 't1' trial 0/.test(error.message) && /first 2 prompt messages/.test(error.message));
});

test('prompt messages shared as objects and prompt messages equal as text encode the same', () => {
  const copies: Message[] = [structuredClone(prompt[0]), structuredClone(prompt[1]), answer];
  const shared: Message[] = [...prompt, answer];
  const mixed: Message[] = [prompt[0], structuredClone(prompt[1]), answer];
  const encodings = [copies, shared, mixed].map((messages) => encodeTranscript(messages, prompt));
  assert.deepEqual(encodings[0], { encoding: 'json', data: JSON.stringify([answer]), promptMessages: 2 });
  assert.deepEqual(encodings[1], encodings[0]);
  assert.deepEqual(encodings[2], encodings[0]);
  // A transcript that is only the prompt stores an empty list.
  assert.deepEqual(encodeTranscript([...prompt], prompt), { encoding: 'json', data: '[]', promptMessages: 2 });
});

test('transcripts of every size round-trip, each compressed with a window that spans it', () => {
  // Sizes around each window the encoder picks (2^bits - 262 bytes), from just past the threshold to past zlib's 32 KB.
  for (const length of [2100, 3834, 3835, 7930, 16000, 32506, 32507, 100_000]) {
    // Text that repeats from far back: a window too short for it would still decode, but this checks the bytes.
    const content = Array.from({ length }, (_, index) => String.fromCharCode(97 + ((index * 7919) % 26)).repeat(1 + (index % 5))).join(' ').slice(0, length);
    const messages: Message[] = [{ role: 'user', content }];
    const encoded = encodeTranscript(messages);
    assert.equal(encoded.encoding, 'gzip');
    assert.deepEqual(decodeTranscript(encoded.encoding, encoded.data), messages);
  }
});

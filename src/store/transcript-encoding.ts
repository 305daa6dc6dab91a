/**
 * How a transcript is stored: JSON text when short, gzip-compressed JSON above a threshold. Tool-heavy
 * transcripts repeat tool names, argument keys and result shapes, so gzip shrinks them several-fold;
 * short ones stay readable text (and skip the compression cost). Export and import always see the
 * decoded messages, so JSONL stays byte-identical whatever the encoding.
 *
 * A transcript's leading messages that are exactly its task's prompt (system prompt, tool list, question: ~5 KB
 * of a NESTFUL episode's ~7) are not stored again: the row counts them (`promptMessages`, store schema 8) and
 * reading the episode takes them from the task stored with the run. Exactly means the stored JSON is the same
 * text, so the decoded transcript is the one that was written, byte for byte.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { ConfigError, errorMessage } from '../core/errors.ts';
import type { Message } from '../core/message.ts';
import { memoizeByObject } from '../core/memoize-by-object.ts';
import { damagedDatabaseFix } from './stored-json.ts';

export type TranscriptEncoding = 'json' | 'gzip';

export type EncodedTranscript = { encoding: TranscriptEncoding; data: string | Buffer; promptMessages: number };

/** Transcripts of at least this many bytes of JSON are compressed. */
export const compressionThresholdBytes = 2048;

/** Each prompt message's JSON, by prompt array: a task's trials share one prompt, serialised once. */
const promptJson = memoizeByObject((prompt: readonly Message[]): string[] => prompt.map((message) => JSON.stringify(message)));

/** `messages` as stored; with the task's prompt, the leading messages equal to it are counted, not stored. */
export function encodeTranscript(messages: readonly Message[], taskPrompt: readonly Message[] = [], options: TranscriptEncodingOptions = {}): EncodedTranscript {
  let promptMessages = 0;
  // An agent usually starts its transcript with the prompt's own message objects: those are equal without
  // serialising ~5 KB of prompt twice per episode. Others are compared by their JSON text.
  while (promptMessages < taskPrompt.length && promptMessages < messages.length && messages[promptMessages] === taskPrompt[promptMessages]) promptMessages += 1;
  const parts = messages.slice(promptMessages).map((message) => JSON.stringify(message));
  if (promptMessages < taskPrompt.length && parts.length > 0) {
    const prompt = promptJson(taskPrompt);
    let equal = 0;
    while (promptMessages + equal < prompt.length && equal < parts.length && parts[equal] === prompt[promptMessages + equal]) equal += 1;
    promptMessages += equal;
    parts.splice(0, equal);
  }
  // The same text as JSON.stringify of the stored messages: an array's JSON is its elements' joined by commas.
  const json = `[${parts.join(',')}]`;
  if (options.deferCompression === true) return { encoding: 'json', data: json, promptMessages };
  return { ...compressTranscriptJson(json), promptMessages };
}

export type TranscriptEncodingOptions = {
  /**
   * Leave the transcript as JSON text whatever its size: the caller compresses it later, on another thread, with
   * compressTranscriptJson (the episode writer thread), and stores the same bytes encodeTranscript would have.
   */
  deferCompression?: boolean;
};

/** A transcript's JSON as stored: the text itself when short, gzip above the threshold. */
export function compressTranscriptJson(json: string): { encoding: TranscriptEncoding; data: string | Buffer } {
  const bytes = Buffer.byteLength(json);
  if (bytes < compressionThresholdBytes) return { encoding: 'json', data: json };
  // Level 1: a third of level 6's cost for a few percent more bytes; compression was the largest cost of storing a replayed episode.
  return { encoding: 'gzip', data: gzipSync(json, { level: 1, windowBits: windowBitsFor(bytes) }) };
}

/**
 * The smallest deflate window that spans the whole text (2^bits bytes, less deflate's 262-byte lookahead), from 9 to
 * zlib's 15. A 32 KB window for a 3 KB transcript made zlib set up (and clear) ~10x the memory it used: a third of the
 * compression's cost, for the same bytes. Any window is read back by the same gunzip.
 */
function windowBitsFor(bytes: number): number {
  let bits = 9;
  while (bits < 15 && (1 << bits) - 262 < bytes) bits += 1;
  return bits;
}

function damagedTranscript(where: string, reason: string): ConfigError {
  return new ConfigError('store.invalid', `the stored transcript of ${where} is damaged (${reason})`, {
    fix: damagedDatabaseFix,
  });
}

/**
 * The stored messages, after the task prompt's first `promptMessages` messages when the row counts some. `where`
 * names the episode for the error when the task's prompt is shorter than the row says (a damaged database).
 */
export function decodeTranscript(
  encoding: string, data: string | Buffer | Uint8Array, promptMessages = 0, taskPrompt: readonly Message[] = [], where = 'an episode',
): Message[] {
  let text: string;
  try {
    text = encoding === 'gzip' ? gunzipSync(data as Uint8Array).toString('utf8') : typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
  } catch (error) {
    throw damagedTranscript(where, errorMessage(error));
  }
  let stored: Message[];
  try {
    stored = JSON.parse(text) as Message[];
  } catch (error) {
    throw damagedTranscript(where, errorMessage(error));
  }
  if (promptMessages === 0) return stored;
  if (taskPrompt.length < promptMessages) {
    throw new ConfigError('store.invalid', `the transcript of ${where} starts with its task's first ${promptMessages} prompt messages, but the stored task has ${taskPrompt.length}`, {
      fix: damagedDatabaseFix,
    });
  }
  return [...taskPrompt.slice(0, promptMessages), ...stored];
}

/**
 * How a transcript is stored: JSON text when short, gzip-compressed JSON above a threshold. Tool-heavy
 * transcripts repeat tool names, argument keys and result shapes, so gzip shrinks them several-fold;
 * short ones stay readable text (and skip the compression cost). Export and import always see the
 * decoded messages, so JSONL stays byte-identical whatever the encoding.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Message } from '../core/message.ts';

export type TranscriptEncoding = 'json' | 'gzip';

/** Transcripts of at least this many bytes of JSON are compressed. */
export const compressionThresholdBytes = 2048;

export function encodeTranscript(messages: readonly Message[]): { encoding: TranscriptEncoding; data: string | Buffer } {
  const json = JSON.stringify(messages);
  if (Buffer.byteLength(json) < compressionThresholdBytes) return { encoding: 'json', data: json };
  // Level 1: a third of level 6's cost for a few percent more bytes; compression was the largest cost of storing a replayed episode.
  return { encoding: 'gzip', data: gzipSync(json, { level: 1 }) };
}

export function decodeTranscript(encoding: string, data: string | Buffer | Uint8Array): Message[] {
  if (encoding === 'gzip') return JSON.parse(gunzipSync(data as Uint8Array).toString('utf8')) as Message[];
  return JSON.parse(typeof data === 'string' ? data : Buffer.from(data).toString('utf8')) as Message[];
}

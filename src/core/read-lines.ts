/**
 * A text file's lines, read a chunk at a time (synchronously): a 1 GB JSONL file costs one chunk of memory, not
 * its whole text. Lines are split on '\n' (a trailing '\r' is left to the caller's parser, as String.split left it);
 * multi-byte characters split across chunks are decoded whole. A byte order mark before the first line is dropped; a
 * compressed file is refused with the command that decompresses it.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { checkNotCompressed, withoutByteOrderMark } from './read-text-file.ts';

const chunkBytes = 1 << 20;

export function* readLinesSync(path: string): Generator<string> {
  let pending = '';
  for (const text of readTextChunksSync(path)) {
    pending += text;
    let start = 0;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n', start)) {
      yield pending.slice(start, end);
      start = end + 1;
    }
    pending = pending.slice(start);
  }
  yield pending;
}

/**
 * A text file's text, a chunk at a time (synchronously), for readers that split it themselves (a JSON list's items):
 * multi-byte characters split across chunks are decoded whole, a byte order mark is dropped, a compressed file refused.
 */
export function* readTextChunksSync(path: string): Generator<string> {
  const file = openSync(path, 'r');
  try {
    const decoder = new StringDecoder('utf8');
    const buffer = Buffer.alloc(chunkBytes);
    let atStart = true;
    for (;;) {
      const bytes = readSync(file, buffer, 0, chunkBytes, null);
      if (atStart) checkNotCompressed(path, buffer.subarray(0, bytes));
      let text = bytes === 0 ? decoder.end() : decoder.write(buffer.subarray(0, bytes));
      if (atStart) {
        text = withoutByteOrderMark(text);
        atStart = text === '' && bytes > 0;
      }
      if (text !== '') yield text;
      if (bytes === 0) return;
    }
  } finally {
    closeSync(file);
  }
}

/**
 * The file's first character that is not whitespace (after a byte order mark), read a chunk at a time, so a file's
 * form (a JSON list, an object, JSONL) is known without reading it whole: a JSON list may be one 300 MB line.
 */
export function firstNonBlankCharacter(path: string): string | undefined {
  for (const chunk of readTextChunksSync(path)) {
    const found = /\S/.exec(chunk);
    if (found) return found[0];
  }
  return undefined;
}

/** Lines already read (to look at the first ones before deciding), then the rest of the same reader. */
export function* withLinesRead(read: readonly string[], rest: Iterator<string>): Generator<string> {
  yield* read;
  for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
}

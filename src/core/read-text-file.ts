/**
 * Text files as users hand them over: UTF-8, with or without the byte order mark some editors and exporters write
 * first (Notepad, Excel, PowerShell's Out-File). JSON.parse and the lenient parsers reject the mark as a stray first
 * character, so every reader of a user's file drops it.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** U+FEFF at the very start of a text: a byte order mark, not content. */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function readTextFileSync(path: string): string {
  return withoutByteOrderMark(readFileSync(path, 'utf8'));
}

export async function readTextFile(path: string): Promise<string> {
  return withoutByteOrderMark(await readFile(path, 'utf8'));
}

/** The byte order mark as UTF-8 bytes (for readers of raw bytes). */
export const utf8ByteOrderMark = Buffer.from([0xef, 0xbb, 0xbf]);

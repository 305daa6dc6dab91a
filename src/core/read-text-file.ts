/**
 * Text files as users hand them over: UTF-8, with or without the byte order mark some editors and exporters write
 * first (Notepad, Excel, PowerShell's Out-File). JSON.parse and the lenient parsers reject the mark as a stray first
 * character, so every reader of a user's file drops it.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ConfigError } from './errors.ts';

/** U+FEFF at the very start of a text: a byte order mark, not content. */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function readTextFileSync(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw withPath(error, path);
  }
  return textOf(path, bytes);
}

/**
 * readTextFileSync for a reader with its own message for a file it cannot read (`unreadable`); a file that is not
 * text (compressed) still says so itself.
 */
export function readTextFileOr(path: string, unreadable: (error: unknown) => Error): string {
  try {
    return readTextFileSync(path);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw unreadable(error);
  }
}

export async function readTextFile(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw withPath(error, path);
  }
  return textOf(path, bytes);
}

/** Node names no path when the read itself fails (a folder: EISDIR): the error is given the path it was about. */
function withPath(error: unknown, path: string): unknown {
  if (error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && (error as { path?: unknown }).path === undefined) {
    Object.assign(error, { path });
  }
  return error;
}

function textOf(path: string, bytes: Buffer): string {
  checkNotCompressed(path, bytes);
  return withoutByteOrderMark(bytes.toString('utf8'));
}

/** Archive and compression formats by their first bytes: a user who passes `data.jsonl.gz` is told to decompress it. */
const compressedFormats: readonly { name: string; magic: readonly number[]; decompress: string }[] = [
  { name: 'gzip-compressed', magic: [0x1f, 0x8b], decompress: 'gunzip -k' },
  { name: 'a zip archive', magic: [0x50, 0x4b, 0x03, 0x04], decompress: 'unzip' },
  { name: 'xz-compressed', magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], decompress: 'unxz -k' },
  { name: 'bzip2-compressed', magic: [0x42, 0x5a, 0x68], decompress: 'bunzip2 -k' },
  { name: 'zstd-compressed', magic: [0x28, 0xb5, 0x2f, 0xfd], decompress: 'unzstd' },
];

/** Throws a ConfigError naming the format and the command that decompresses it when `firstBytes` start a compressed file. */
export function checkNotCompressed(path: string, firstBytes: Buffer): void {
  const format = compressedFormats.find(({ magic }) => firstBytes.length >= magic.length && magic.every((byte, index) => firstBytes[index] === byte));
  if (!format) return;
  throw new ConfigError('input.invalid', `${path} is ${format.name}, not text`, {
    fix: `decompress it first (${format.decompress} ${path}) and pass the file it holds`,
  });
}

/** The byte order mark as UTF-8 bytes (for readers of raw bytes). */
export const utf8ByteOrderMark = Buffer.from([0xef, 0xbb, 0xbf]);

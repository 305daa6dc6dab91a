/**
 * A string-keyed map kept in a file for the next run (a cache of paraphrases, simulated responses, judge verdicts):
 * one JSON object `{"<key>": value}` per line, each new entry appended. An entry costs one small write however many
 * came before; rewriting the whole file per entry grew with the square of its size (4,000 paraphrases: 5.5 s; 1,000
 * judge verdicts: 7.2 s, all of it blocking the run). A file holding one object of every entry (earlier versions,
 * StableToolBench's caches) is read too, and an indented one is rewritten as lines at the first write. Only the
 * last line can be cut short by a kill mid-append: it is dropped, and its entry made again. Any other damage is a
 * ConfigError from `damaged`, and a file that cannot be read or written where it is one from `unusable`; both name the
 * file and say what to do.
 */
import { appendFileSync, mkdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ConfigError } from './errors.ts';
import { fileProblem } from './file-problem.ts';

export type JsonMapFile<Value> = {
  get(key: string): Value | undefined;
  /** Stores and appends the entry (nothing is written when the key already holds this value). */
  set(key: string, value: Value): void;
};

export type JsonMapFileOptions<Value> = {
  /** Whether a stored value has the map's shape. */
  isValue(value: unknown): value is Value;
  /** The error for a file that holds something else ("line 3 is not ..."). */
  damaged(reason: string): ConfigError;
  /** The error for a file that cannot be read or written where it is ("permission denied", "a part of the path is a file"). */
  unusable(reason: string): ConfigError;
  /** What a line should be, for `damaged`'s reason ("a JSON object of paraphrases"). */
  lineShape: string;
};

/**
 * Before the first append: nothing to do, a newline to end the last line, a cut line to drop (bytes to keep), or an
 * indented single object to rewrite as lines. Done at the first write, never on a read: a cache only read (a rerun on
 * a read-only copy) is left as it is.
 */
type Repair = { type: 'none' } | { type: 'end-line' } | { type: 'truncate'; bytes: number } | { type: 'rewrite' };

export function openJsonMapFile<Value>(path: string, options: JsonMapFileOptions<Value>): JsonMapFile<Value> {
  const entries = new Map<string, Value>();
  let repair = readEntries(path, entries, options);
  return {
    get: (key) => entries.get(key),
    set(key, value) {
      if (entries.has(key) && JSON.stringify(entries.get(key)) === JSON.stringify(value)) return;
      entries.set(key, value);
      try {
        mkdirSync(dirname(path), { recursive: true });
        if (repair.type === 'rewrite') {
          const temporary = `${path}.${process.pid}.tmp`;
          writeFileSync(temporary, [...entries].map(([entryKey, entryValue]) => line(entryKey, entryValue)).join(''));
          renameSync(temporary, path);
        } else {
          if (repair.type === 'truncate') truncateSync(path, repair.bytes);
          appendFileSync(path, `${repair.type === 'end-line' ? '\n' : ''}${line(key, value)}`);
        }
      } catch (error) {
        throw options.unusable(`cannot write to it: ${fileProblem(path, error)}`);
      }
      repair = { type: 'none' };
    },
  };
}

function readEntries<Value>(path: string, entries: Map<string, Value>, options: JsonMapFileOptions<Value>): Repair {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { type: 'none' };
    throw options.unusable(fileProblem(path, error));
  }
  const whole = entriesOf(text, options);
  if (whole !== undefined && text.trimEnd().includes('\n')) {
    // One object over many lines (written whole, indented): rewritten as lines at the first write, so entries can be appended.
    for (const [key, value] of whole) entries.set(key, value);
    return { type: 'rewrite' };
  }
  const lines = text.split('\n');
  const last = lines.length - 1;
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const lineEntries = entriesOf(line, options);
    if (lineEntries === undefined) {
      // A last line with no newline after lines that were appended: a kill cut it short mid-append. (A file of one
      // damaged line is refused: it may be a whole file cut short, and dropping it would lose every entry silently.)
      if (index === last && index > 0) return { type: 'truncate', bytes: Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1)) };
      throw options.damaged(index === 0 && last <= 1 ? `it is not ${options.lineShape}` : `line ${index + 1} is not ${options.lineShape}`);
    }
    for (const [key, value] of lineEntries) if (!entries.has(key)) entries.set(key, value);
  }
  return text === '' || text.endsWith('\n') ? { type: 'none' } : { type: 'end-line' };
}

function line(key: string, value: unknown): string {
  return `${JSON.stringify({ [key]: value })}\n`;
}

/** The text as one JSON object whose values all have the map's shape, or undefined. */
function entriesOf<Value>(text: string, options: JsonMapFileOptions<Value>): [string, Value][] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const pairs = Object.entries(value);
  return pairs.every(([, entry]) => options.isValue(entry)) ? pairs as [string, Value][] : undefined;
}

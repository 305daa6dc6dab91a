/**
 * A data file that may be a JSON list, read as one without holding it: its form from its first character that is not
 * whitespace, then its items with their positions, a chunk at a time. Each importer names its own kind of file in the
 * errors, so a user reads 'WAPIIBench file ...' or 'nestful data file ...', not a parser's words.
 */
import { ConfigError } from './errors.ts';
import { JsonListShapeError, jsonListItems } from './json-list-items.ts';
import { firstNonBlankCharacter, readTextChunksSync } from './read-lines.ts';

export type JsonListFileErrors = {
  /** The text is not one JSON list; `reason` says where it goes wrong. */
  notAList(reason: string): Error;
  /** The file cannot be read (missing, a folder, no permission). */
  unreadable(error: unknown): Error;
};

/** Whether the file's first character that is not whitespace (after a byte order mark) opens a JSON list. */
export function startsWithJsonList(path: string, errors: JsonListFileErrors): boolean {
  return reading(() => firstNonBlankCharacter(path), errors) === '[';
}

/** The list's items as text, each with its position, read as they are reached: a bad item is the caller's to parse. */
export function* jsonListFileItems(path: string, errors: JsonListFileErrors): Generator<{ index: number; text: string }> {
  const items = jsonListItems(readTextChunksSync(path));
  for (let index = 0; ; index += 1) {
    const step = reading(() => items.next(), errors);
    if (step.done) return;
    yield { index, text: step.value };
  }
}

function reading<T>(read: () => T, errors: JsonListFileErrors): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof JsonListShapeError) throw errors.notAList(error.message);
    // A readable file that is not text (compressed) says so itself.
    if (error instanceof ConfigError) throw error;
    throw errors.unreadable(error);
  }
}

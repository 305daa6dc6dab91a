/** JSON Lines, read one way everywhere (tasks files, replay files, run exports). */
import { errorMessage } from './errors.ts';

export type JsonLine = { lineNumber: number; value: unknown };

/**
 * The non-blank lines of `text` parsed as JSON, in order, with their 1-based line numbers. Lazy: a
 * caller that rejects line 1 reports it before line 2 is parsed. A line that is not JSON goes to
 * `notJson(lineNumber, parserMessage, line)`, which throws the caller's error.
 */
export function* parseJsonLines(text: string | Iterable<string>, notJson: (lineNumber: number, message: string, line: string) => never): Generator<JsonLine> {
  // Text, or its lines as they are read (readLinesSync: a large file is never held whole).
  const lines = typeof text === 'string' ? text.split('\n') : text;
  let index = -1;
  for (const raw of lines) {
    index += 1;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw) as unknown;
    } catch (error) {
      notJson(index + 1, errorMessage(error), raw);
    }
    yield { lineNumber: index + 1, value };
  }
}

/** JSON Lines, read one way everywhere (tasks files, replay files, run exports). */
import { errorMessage } from './errors.ts';

export type JsonLine = { lineNumber: number; value: unknown };

/**
 * The non-blank lines of `text` parsed as JSON, with their 1-based line numbers. A line that is not
 * JSON goes to `notJson(lineNumber, parserMessage)`, which throws the caller's error.
 */
export function parseJsonLines(text: string, notJson: (lineNumber: number, message: string) => never): JsonLine[] {
  const lines: JsonLine[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    try {
      lines.push({ lineNumber: index + 1, value: JSON.parse(raw) as unknown });
    } catch (error) {
      notJson(index + 1, errorMessage(error));
    }
  });
  return lines;
}

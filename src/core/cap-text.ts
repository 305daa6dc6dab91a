/**
 * Caps text that a program or a model controls before it is kept (trace, score reason, transcript), so one huge
 * output cannot grow host memory or the results file. A cut text keeps its head and ends with a marker saying how
 * much was cut and how long the whole was; `fullTextLength` reads that length back as a number.
 */

/** Documented sizes, in UTF-16 code units (JavaScript string length). */
export const textCaps = {
  /** An error message, a score reason, one console entry. */
  message: 4_096,
  /** A URL, one header value, one string inside a recorded body or a result value. */
  field: 16_384,
  /** One transcript message's content or tool output. */
  content: 65_536,
} as const;

const markerPattern = /…\[cut (\d+) characters; (\d+) in all\]$/;

/** The marker ending a cut text. */
function marker(cutCharacters: number, fullLength: number): string {
  return `…[cut ${cutCharacters} characters; ${fullLength} in all]`;
}

/**
 * `text` itself when it is at most `maximumCharacters` long, else its head and the marker, together at most
 * `maximumCharacters` long (the marker alone when the cap is shorter than the marker). Never splits a surrogate pair.
 */
export function capText(text: string, maximumCharacters: number): string {
  if (text.length <= maximumCharacters) return text;
  // The marker's own length depends on the cut count; the full length bounds it.
  const markerLength = marker(text.length, text.length).length;
  let headLength = Math.max(0, maximumCharacters - markerLength);
  const last = text.charCodeAt(headLength - 1);
  if (headLength > 0 && last >= 0xd800 && last <= 0xdbff) headLength -= 1;
  return text.slice(0, headLength) + marker(text.length - headLength, text.length);
}

/** The length of the text before `capText` cut it (its own length when it was not cut). */
export function fullTextLength(text: string): number {
  const match = markerPattern.exec(text);
  return match ? Number(match[2]) : text.length;
}

/** Whether `capText` cut this text. */
export function isCutText(text: string): boolean {
  return markerPattern.test(text);
}

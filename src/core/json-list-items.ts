/**
 * The items of a JSON list, as text, one at a time, from its text in chunks: the list is split at its top-level
 * commas, so reading a 100,000-sample JSON list file holds one item's text, not the file or every parsed item. Strings
 * in double or single quotes (Python literals, which lenient readers accept) are passed over whole, escapes included.
 * Each item's text is the caller's to parse; a trailing comma before `]` is allowed, as lenient readers allow it.
 */

/** The text is not one JSON list (its message says where); the caller names the file. */
export class JsonListShapeError extends Error {}

const enum Code {
  Quote = 0x22, Apostrophe = 0x27, Backslash = 0x5c, Comma = 0x2c,
  OpenBracket = 0x5b, CloseBracket = 0x5d, OpenBrace = 0x7b, CloseBrace = 0x7d,
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

export function* jsonListItems(chunks: Iterable<string>): Generator<string> {
  // Where the scan is: before the list's '[', inside it (depth 1 = between items), or after its ']'.
  let phase: 'before' | 'inside' | 'after' = 'before';
  let depth = 0;
  let quote = 0;
  let escaped = false;
  let item = '';
  let offset = 0;
  for (const chunk of chunks) {
    let start = 0;
    for (let index = 0; index < chunk.length; index += 1) {
      const code = chunk.charCodeAt(index);
      if (phase !== 'inside') {
        if (isWhitespace(code)) continue;
        if (phase === 'before' && code === Code.OpenBracket) {
          phase = 'inside';
          depth = 1;
          start = index + 1;
          continue;
        }
        throw new JsonListShapeError(phase === 'before'
          ? `it does not start with '[' (found ${JSON.stringify(chunk[index])} at offset ${offset + index})`
          : `text after the list's closing ']' at offset ${offset + index}`);
      }
      if (quote !== 0) {
        if (escaped) escaped = false;
        else if (code === Code.Backslash) escaped = true;
        else if (code === quote) quote = 0;
        continue;
      }
      if (code === Code.Quote || code === Code.Apostrophe) {
        quote = code;
      } else if (code === Code.OpenBracket || code === Code.OpenBrace) {
        depth += 1;
      } else if ((code === Code.CloseBracket || code === Code.CloseBrace) && depth > 1) {
        depth -= 1;
      } else if (depth === 1 && (code === Code.Comma || code === Code.CloseBracket)) {
        const text = (item + chunk.slice(start, index)).trim();
        item = '';
        start = index + 1;
        // `[]`, and a trailing comma before ']', end the list without an item; an empty item elsewhere is the
        // caller's to refuse (its parse fails on empty text).
        if (code === Code.Comma || text !== '') yield text;
        if (code === Code.CloseBracket) {
          phase = 'after';
          depth = 0;
        }
      } else if (depth === 1 && code === Code.CloseBrace) {
        throw new JsonListShapeError(`unbalanced '}' at offset ${offset + index}`);
      }
    }
    if (phase === 'inside') item += chunk.slice(start);
    offset += chunk.length;
  }
  if (phase === 'before') throw new JsonListShapeError('the text is empty');
  if (phase === 'inside') throw new JsonListShapeError(quote !== 0 ? 'a string is not closed before the end of the text' : `the list is not closed: ']' is missing at the end of the text`);
}

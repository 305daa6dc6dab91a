/**
 * The parts of a request that name or give something exactly: code and quoted values, identifiers (`user_variable_0`,
 * `data.title`, `torch.load`, `RESULT`, `voiceName`), decimal numbers, and the task's own names (its tools and their
 * parameters, plain words such as `text` or `city` included). Surface noise leaves them as they are: an upper-cased
 * `result` or a `datatitle` with its period deleted is another name, and `12.8` without its period another value, so
 * the request would no longer describe the task it is scored against.
 */
const verbatim = /`[^`\n]*`|"[^"\n]*"|\d+\.\d+|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g;

/** Whether a word is an identifier rather than prose: it holds `_` or `.`, or is camelCase or ALL CAPS. */
function isIdentifier(word: string): boolean {
  return /[_.$]/.test(word) || /[a-z][A-Z]/.test(word) || /^[A-Z][A-Z0-9]+$/.test(word);
}

/** Per UTF-16 index of `text`: true inside a span to keep verbatim; `names` are the task's tool and parameter names. */
export function verbatimMask(text: string, names: ReadonlySet<string> = new Set()): boolean[] {
  const mask = new Array<boolean>(text.length).fill(false);
  for (const match of text.matchAll(verbatim)) {
    const span = match[0];
    const kept = span.startsWith('`') || span.startsWith('"') || /^\d/.test(span) || isIdentifier(span) || names.has(span);
    if (!kept) continue;
    for (let index = match.index; index < match.index + span.length; index += 1) mask[index] = true;
  }
  return mask;
}

/**
 * Commands ToolForge prints for the user to paste (resume a run, report it, start it again) quote what the shell would
 * split or expand: a database in a folder with a space, a replay file named with a quote.
 */

/** `value` as one POSIX shell word: unchanged when it is safe bare, else in single quotes. */
export function shellArgument(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A command line from its words, each quoted as needed. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellArgument).join(' ');
}

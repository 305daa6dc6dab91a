/**
 * A key given twice in one JSON object. JSON.parse keeps the last silently, so a config that sets `core` twice runs
 * with one of them and nobody is told; YAML files are refused for it by their parser, and JSON ones are checked here
 * (through the YAML parser, which reads JSON and reports where a key repeats).
 */
import { parseDocument } from 'yaml';

export type RepeatedJsonKey = { key: string; line: number; column: number };

/** The first key that repeats within an object of `text` (valid JSON), or undefined. */
export function repeatedJsonKey(text: string): RepeatedJsonKey | undefined {
  const repeated = parseDocument(text, { prettyErrors: false }).errors.find((error) => error.code === 'DUPLICATE_KEY');
  if (repeated === undefined) return undefined;
  const start = repeated.pos[0];
  const quoted = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(start))?.[0];
  const position = lineAndColumn(text, start);
  return { key: quoted === undefined ? text.slice(start, repeated.pos[1]) : JSON.parse(quoted) as string, ...position };
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

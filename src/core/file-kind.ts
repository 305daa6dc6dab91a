/**
 * The JSONL files a user hands ToolForge look alike: tasks (`generate`), a run export (`export`), model outputs to
 * replay, NESTFUL data. Passing one where another belongs would fail on a field deep in the first line; recognising
 * the first line instead says what the file is and the command that takes it.
 */
import { readFileSync, statSync } from 'node:fs';
import { shellArgument } from './shell-argument.ts';

export type FileKind = 'tasks' | 'export' | 'replay' | 'nestful-data' | 'wapiibench-data' | 'toolbench-data';

/** The kind of file a parsed line belongs to, when it is clearly one of them. */
export function lineKind(value: unknown): FileKind | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (record.type === 'run' && typeof record.run === 'object') return 'export';
  if ((record.type === 'task' || record.type === 'episode') && (typeof record.task === 'object' || typeof record.episode === 'object')) return 'export';
  if (typeof record.taskId === 'string' && ('turns' in record || 'output' in record)) return 'replay';
  if (typeof record.id === 'string' && typeof record.suite === 'object' && Array.isArray(record.prompt)) return 'tasks';
  if ('sample_id' in record && 'tools' in record && 'output' in record) return 'nestful-data';
  if (typeof record.api === 'string' && (('task' in record && 'config' in record) || Array.isArray(record.samples))) return 'wapiibench-data';
  if ('query_id' in record && 'query' in record && Array.isArray(record.api_list)) return 'toolbench-data';
  return undefined;
}

const described: Record<FileKind, { what: string; use: (path: string) => string }> = {
  tasks: { what: 'a tasks file (as `toolforge generate` writes it)', use: (path) => `run its tasks with \`toolforge run --tasks ${path} --model <ref>\`` },
  export: { what: 'a run export (as `toolforge export` writes it)', use: (path) => `add the run to a results database with \`toolforge import ${path}\`` },
  replay: {
    what: 'a file of model outputs to replay',
    use: (path) => `score them with \`toolforge run <suite> --model replay/${path}\` (with --tasks <file> when they answer a tasks file)`,
  },
  'nestful-data': { what: 'a NESTFUL data file', use: (path) => `run its samples with \`toolforge run nestful --set data=${path} --model <ref>\`` },
  'wapiibench-data': { what: 'a WAPIIBench task file', use: (path) => `run its tasks with \`toolforge run webapi --set data=${path} --model <ref>\`` },
  'toolbench-data': { what: 'a StableToolBench query file', use: (path) => `run its queries with \`toolforge run toolbench --set data=${path} --model <ref>\`` },
};

/**
 * When the first line of `path` shows it is another kind of file than `expected`, what it is and where it goes
 * (`{ problem, fix }` for a ConfigError); otherwise undefined, and the reader reports the field as usual.
 */
export function otherFileKind(path: string, firstLine: unknown, expected: FileKind, expectedWhat: string): { problem: string; fix: string } | undefined {
  const kind = lineKind(firstLine);
  if (kind === undefined || kind === expected) return undefined;
  return { problem: `this is ${described[kind].what}, not ${expectedWhat}`, fix: described[kind].use(shellArgument(path)) };
}

/**
 * A reader of one JSON document (a data set's list) whose parse of the whole text failed: when the first two values
 * each fill a line, the file is JSON Lines. Says so, naming the kind of file it is when its first line shows it.
 */
export function linesInsteadOfJsonDocument(path: string, text: string, expected: FileKind, expectedWhat: string): { problem: string; fix: string } | undefined {
  const lines: string[] = [];
  for (const line of text.replace(/^\uFEFF/, '').split('\n', 64)) {
    if (line.trim() !== '') lines.push(line);
    if (lines.length === 2) break;
  }
  if (lines.length < 2) return undefined;
  let first: unknown;
  try {
    first = JSON.parse(lines[0] as string);
    JSON.parse(lines[1] as string);
  } catch {
    return undefined;
  }
  return otherFileKind(path, first, expected, expectedWhat) ?? {
    problem: `this is JSON Lines (one value per line), not one JSON document (${expectedWhat} is one)`,
    fix: 'put the items in one list, e.g. `jq -s . file.jsonl > file.json`',
  };
}

/** Past this size a file is not read whole just to say what it is. */
const documentReadLimitBytes = 64 * 1024 * 1024;

/**
 * A JSON Lines reader whose first line failed: when that line opens a JSON document (a pretty-printed object, or a
 * list), the file is one JSON document, not JSON Lines. Says so, naming the kind of file it is when it is another.
 * `firstValue` is the first line's value when it parsed (a list on one line).
 */
export function jsonDocumentInsteadOfLines(path: string, firstLine: { text: string } | { value: unknown }, expected: FileKind, expectedWhat: string): { problem: string; fix: string } | undefined {
  let document: unknown;
  if ('value' in firstLine) {
    if (!Array.isArray(firstLine.value)) return undefined;
    document = firstLine.value;
  } else {
    if (!/^\s*(\uFEFF)?[[{]/.test(firstLine.text)) return undefined;
    try {
      if (statSync(path).size > documentReadLimitBytes) return undefined;
      document = JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')) as unknown;
    } catch {
      return undefined;
    }
  }
  const isList = Array.isArray(document);
  // Data sets come as JSON documents: name them. A list of tasks or outputs is still not JSON Lines.
  const kind = lineKind(isList ? (document as unknown[])[0] : document);
  const other = kind === 'nestful-data' || kind === 'wapiibench-data' || kind === 'toolbench-data' ? otherFileKind(path, isList ? (document as unknown[])[0] : document, expected, expectedWhat) : undefined;
  if (other) return other;
  return {
    problem: `this is one JSON ${isList ? 'list' : 'document'}, not JSON Lines (${expectedWhat} holds one object per line)`,
    fix: isList ? 'write each item on a line of its own, e.g. `jq -c ".[]" file.json > file.jsonl`' : 'write each object on one line, e.g. `jq -c . file.json > file.jsonl`',
  };
}

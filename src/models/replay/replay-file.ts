/**
 * Stored model outputs, one JSON object per line: a multi-turn script
 * `{"taskId", "turns": [{"content", "toolCalls": [{"name", "arguments" | "argumentsText"}]}]}` or a
 * one-shot `{"taskId", "output"}`; an optional `"trial"` pins a line to one trial.
 *
 * The file is checked whole in one streaming pass (a bad, repeated or unparsable line fails before anything runs)
 * but only indexed: each line's task id, trial and byte range stay in memory, and a line is read back from the file
 * when an episode asks for it. A 100,000-line file then costs its task ids, not its outputs.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { z } from 'zod';
import { jsonDocumentInsteadOfLines, otherFileKind } from '../../core/file-kind.ts';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import { checkNotCompressed, utf8ByteOrderMark } from '../../core/read-text-file.ts';
import { fileProblem } from '../../core/file-problem.ts';
import { formatFieldPath } from '../../core/field-path.ts';
import { shellArgument } from '../../core/shell-argument.ts';
import { editDistance } from '../../core/edit-distance.ts';

const replayToolCallSchema = z.strictObject({
  id: z.string().min(1).optional(),
  name: z.string(),
  // Anything but an object is the model's raw text, which goes in argumentsText (a string, an array, `not json`).
  arguments: z.record(z.string(), z.unknown(), {
    error: (issue) => (issue.input === undefined ? undefined
      : `expected an object; put argument text as the model wrote it (malformed or not an object) in "argumentsText", e.g. \"argumentsText\": ${JSON.stringify(typeof issue.input === 'string' ? issue.input : JSON.stringify(issue.input)).slice(0, 80)}`),
  }).optional(),
  // The raw text as the model emitted it, so malformed recorded calls replay as malformed.
  argumentsText: z.string().optional(),
}).refine((call) => (call.arguments === undefined) !== (call.argumentsText === undefined), {
  message: 'give exactly one of "arguments" (an object) or "argumentsText" (the raw text)',
  path: ['arguments'],
});

const replayTurnSchema = z.strictObject({
  content: z.string().default(''),
  toolCalls: z.array(replayToolCallSchema).default([]),
  reasoning: z.string().optional(),
});

// Strict: a misspelt field ("ouptut", "trail") would otherwise be dropped, and with it the output or the trial.
const replayLineSchema = z.union([
  z.strictObject({ taskId: z.string().min(1), trial: z.number().int().nonnegative().optional(), turns: z.array(replayTurnSchema) }),
  z.strictObject({ taskId: z.string().min(1), trial: z.number().int().nonnegative().optional(), output: z.string() }),
]);

/** The fields each object of a line may have, by where it is: what a misspelt one is compared with. */
const lineFields = ['taskId', 'trial', 'turns', 'output'] as const;
const turnFields = Object.keys(replayTurnSchema.shape);
const toolCallFields = ['id', 'name', 'arguments', 'argumentsText'];

export type ReplayToolCall = z.infer<typeof replayToolCallSchema>;
export type ReplayTurn = z.infer<typeof replayTurnSchema>;
export type ReplayLine = z.infer<typeof replayLineSchema>;
export type ReplayEntry = { lineNumber: number; line: ReplayLine };

/** A trial of -1: the line answers every trial of its task. */
const everyTrial = -1;

/**
 * The lines of a replay file by number (file order, 0-based): where each is, and which entries each task id has.
 * Task ids are kept in the order the file first names them.
 */
export type ReplayFileIndex = {
  readonly path: string;
  /** How many (non-blank) lines the file has. */
  readonly entryCount: number;
  /** Entry numbers of each task id, in file order: a number for the usual single line, an array for several. */
  readonly entriesByTaskId: ReadonlyMap<string, number | readonly number[]>;
  /** The line's pinned trial, or undefined when it answers every trial. */
  trialOf(entry: number): number | undefined;
  /** The entry's line number in the file (1-based, blank lines counted). */
  lineNumberOf(entry: number): number;
  /** Reads the entry's line from the file again and parses it. */
  read(entry: number): ReplayEntry;
};

const chunkBytes = 1 << 20;
const newline = 0x0a;

export function indexReplayFile(path: string): ReplayFileIndex {
  if (path === '-') {
    throw new ConfigError('config.invalid', 'replay/- (the standard input) cannot be read: a replay model reads each output back from its file when an episode asks for it', {
      fix: 'save the outputs to a file first and pass replay/<path/to/outputs.jsonl>',
    });
  }
  const lineNumbers: number[] = [];
  const trials: number[] = [];
  const offsets: number[] = [];
  const lengths: number[] = [];
  const entriesByTaskId = new Map<string, number | number[]>();
  for (const { lineNumber, offset, bytes } of fileLines(path)) {
    const text = decodeLine(path, lineNumber, offset, bytes);
    if (text.trim() === '') continue;
    const line = parseLine(path, lineNumber, text, lineNumbers.length === 0);
    const trial = line.trial ?? everyTrial;
    const previous = entriesByTaskId.get(line.taskId);
    const repeated = previous === undefined ? undefined
      : (typeof previous === 'number' ? [previous] : previous).find((entry) => trials[entry] === trial);
    if (repeated !== undefined) {
      throw new ConfigError('input.invalid', `replay file ${path} line ${lineNumber} repeats taskId '${line.taskId}'${line.trial === undefined ? '' : ` trial ${line.trial}`} already on line ${lineNumbers[repeated]}`, {
        fix: 'keep one line per task, or, for --trials n with a different output per trial, give each line its trial: {"taskId": "...", "trial": 0, ...}, {"taskId": "...", "trial": 1, ...}',
      });
    }
    const entry = lineNumbers.length;
    lineNumbers.push(lineNumber);
    trials.push(trial);
    offsets.push(offset);
    lengths.push(bytes.length);
    if (previous === undefined) entriesByTaskId.set(line.taskId, entry);
    else if (typeof previous === 'number') entriesByTaskId.set(line.taskId, [previous, entry]);
    else previous.push(entry);
  }
  // Episodes ask for lines mostly in file order: one read of a chunk serves the lines after it too, instead of an
  // open, read and close per episode. A chunk holds no more than chunkBytes (or one longer line).
  let window: { offset: number; bytes: Buffer } | undefined;
  const readLine = (offset: number, length: number): Buffer => {
    if (!window || offset < window.offset || offset + length > window.offset + window.bytes.length) {
      window = { offset, bytes: readRange(path, offset, Math.max(length, chunkBytes)) };
    }
    return window.bytes.subarray(offset - window.offset, offset - window.offset + length);
  };
  return {
    path,
    entryCount: lineNumbers.length,
    entriesByTaskId,
    trialOf: (entry) => (trials[entry] === everyTrial ? undefined : trials[entry]),
    lineNumberOf: (entry) => lineNumbers[entry],
    read(entry) {
      const lineNumber = lineNumbers[entry];
      let line: ReplayLine;
      try {
        line = replayLineSchema.parse(JSON.parse(utf8.decode(readLine(offsets[entry], lengths[entry]))));
      } catch (error) {
        throw changedError(path, lineNumber, errorMessage(error));
      }
      const entries = entriesByTaskId.get(line.taskId);
      const indexed = entries === entry || (typeof entries === 'object' && entries.includes(entry));
      if (!indexed || trials[entry] !== (line.trial ?? everyTrial)) {
        throw changedError(path, lineNumber, `it now names taskId '${line.taskId}'`);
      }
      return { lineNumber, line };
    },
  };
}

/**
 * Fatal: Buffer#toString would put U+FFFD in place of bytes that are not UTF-8, and replay outputs nobody wrote.
 * ignoreBOM keeps a mark inside the file as text, as before (the one that starts the file is dropped by fileLines).
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeLine(path: string, lineNumber: number, lineOffset: number, bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    const at = firstInvalidUtf8Byte(bytes);
    const fileOffset = lineOffset + at;
    throw new ConfigError('input.invalid', `replay file ${path} line ${lineNumber} is not UTF-8: byte 0x${bytes[at].toString(16).padStart(2, '0')} at byte offset ${fileOffset} of the file (byte ${at + 1} of the line)`, {
      fix: `save the file as UTF-8: \`xxd -s ${fileOffset} -l 16 ${shellArgument(path)}\` shows the bytes there, and \`iconv -f <its encoding> -t UTF-8\` converts a file written in another encoding`,
    });
  }
}

/**
 * Where TextDecoder's fatal check fails (it does not say): the first byte of the first sequence that is not
 * well-formed UTF-8. Overlong forms, surrogates and code points past U+10FFFF are refused, as the decoder refuses them.
 */
function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index];
    if (lead < 0x80) {
      index += 1;
      continue;
    }
    // The lead byte fixes the sequence's length and the range its second byte may take.
    let length = 0;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) [length, low, high] = [3, lead === 0xe0 ? 0xa0 : 0x80, lead === 0xed ? 0x9f : 0xbf];
    else if (lead >= 0xf0 && lead <= 0xf4) [length, low, high] = [4, lead === 0xf0 ? 0x90 : 0x80, lead === 0xf4 ? 0x8f : 0xbf];
    if (length === 0) return index;
    for (let next = 1; next < length; next += 1) {
      const byte = bytes[index + next];
      if (byte === undefined || byte < (next === 1 ? low : 0x80) || byte > (next === 1 ? high : 0xbf)) return index;
    }
    index += length;
  }
  // Not reached for bytes the decoder refused; the last byte is the safest thing to name.
  return Math.max(0, bytes.length - 1);
}

function parseLine(path: string, lineNumber: number, text: string, isFirst: boolean): ReplayLine {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    const document = isFirst ? jsonDocumentInsteadOfLines(path, { text }, 'replay', 'a file of model outputs to replay') : undefined;
    if (document) throw new ConfigError('input.invalid', `replay file ${path} line ${lineNumber}: ${document.problem}`, { fix: document.fix });
    throw lineError(path, lineNumber, `is not valid JSON (${errorMessage(error)})`);
  }
  const parsed = replayLineSchema.safeParse(value);
  if (!parsed.success) {
    const other = isFirst ? otherFileKind(path, value, 'replay', 'a file of model outputs to replay') ?? jsonDocumentInsteadOfLines(path, { value }, 'replay', 'a file of model outputs to replay') : undefined;
    if (other) throw new ConfigError('input.invalid', `replay file ${path} line ${lineNumber}: ${other.problem}`, { fix: other.fix });
    const issue = describeLineIssue(value, parsed.error);
    throw lineError(path, lineNumber, issue.problem, issue.fix);
  }
  return parsed.data;
}

/**
 * The file's lines split on '\n' as bytes (a trailing '\r' is left to JSON.parse, which allows it), with their
 * 1-based numbers and byte ranges, read a chunk at a time. '\n' never occurs inside a UTF-8 multi-byte character,
 * so a byte range always holds whole characters.
 */
function* fileLines(path: string): Generator<{ lineNumber: number; offset: number; bytes: Buffer }> {
  const file = openReplayFile(path);
  try {
    const buffer = Buffer.alloc(chunkBytes);
    let pending = Buffer.alloc(0);
    let pendingOffset = 0;
    let lineNumber = 0;
    for (;;) {
      const read = readReplayChunk(path, file, buffer);
      if (read === 0) break;
      if (pendingOffset === 0 && lineNumber === 0 && pending.length === 0) checkNotCompressed(path, buffer.subarray(0, read));
      const chunk = pending.length === 0 ? buffer.subarray(0, read) : Buffer.concat([pending, buffer.subarray(0, read)]);
      // A byte order mark before the first line is not part of it.
      let start = pendingOffset === 0 && lineNumber === 0 && chunk.subarray(0, 3).equals(utf8ByteOrderMark) ? 3 : 0;
      for (let end = chunk.indexOf(newline); end >= 0; end = chunk.indexOf(newline, start)) {
        lineNumber += 1;
        yield { lineNumber, offset: pendingOffset + start, bytes: chunk.subarray(start, end) };
        start = end + 1;
      }
      // Copied: the next read overwrites the buffer the remainder lies in.
      pending = Buffer.from(chunk.subarray(start));
      pendingOffset += start;
    }
    yield { lineNumber: lineNumber + 1, offset: pendingOffset, bytes: pending };
  } finally {
    closeSync(file);
  }
}

/** A read error (a folder, a device gone) is the user's path, named as such, not a crash. */
function readReplayChunk(path: string, file: number, buffer: Buffer): number {
  try {
    return readSync(file, buffer, 0, buffer.length, null);
  } catch (error) {
    throw new ConfigError('input.unreadable', `cannot read replay file ${path}: ${fileProblem(path, error)}`, {
      fix: 'pass an existing JSONL file: replay/<path/to/outputs.jsonl>', cause: error,
    });
  }
}

function openReplayFile(path: string): number {
  try {
    return openSync(path, 'r');
  } catch (error) {
    throw new ConfigError('input.unreadable', `cannot read replay file ${path}: ${fileProblem(path, error)}`, {
      fix: 'pass an existing JSONL file: replay/<path/to/outputs.jsonl>', cause: error,
    });
  }
}

function readRange(path: string, offset: number, length: number): Buffer {
  const file = openReplayFile(path);
  try {
    const bytes = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const read = readSync(file, bytes, done, length - done, offset + done);
      if (read === 0) break;
      done += read;
    }
    return bytes.subarray(0, done);
  } finally {
    closeSync(file);
  }
}

/**
 * Names the offending field; for the union, the issue of the branch the line was meant to be. An unknown field has
 * its own fix (rename or remove it), as the line's shape is otherwise right.
 */
function describeLineIssue(value: unknown, error: z.ZodError): { problem: string; fix?: string } {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject) return { problem: 'must be a JSON object with "taskId" and either "turns" or "output"' };
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !(lineFields as readonly string[]).includes(key));
  if (unknown !== undefined) return unknownField([unknown], lineFields, "a line's fields are");
  if ('turns' in record && 'output' in record) {
    return { problem: 'gives both "turns" and "output", and only one of them would be replayed', fix: 'keep one: "turns" for a multi-turn script, "output" for a one-shot answer' };
  }
  if (!('turns' in record) && !('output' in record)) return { problem: 'field "turns" or "output": one of them is required' };
  const branch = 'turns' in record
    ? replayLineSchema.options[0].safeParse(value)
    : replayLineSchema.options[1].safeParse(value);
  const issues = branch.success ? error.issues : branch.error.issues;
  // Inside a turn (turns[i]) or a tool call (turns[i].toolCalls[j]): that object's fields are the candidates.
  const misspelt = issues.find((issue) => issue.code === 'unrecognized_keys');
  if (misspelt !== undefined) {
    const [fields, what] = misspelt.path.length >= 4 ? [toolCallFields, "a tool call's fields are"] : [turnFields, "a turn's fields are"];
    return unknownField([...misspelt.path, misspelt.keys[0]], fields, what);
  }
  return { problem: issues.slice(0, 3).map((issue) => `field "${formatFieldPath(issue.path) || '(line)'}": ${issue.message}`).join('; ') };
}

/** `field "ouptut": unknown field (did you mean "output"?)`, or the valid fields when none is near; the fix renames or removes it. */
function unknownField(path: readonly PropertyKey[], fields: readonly string[], what: string): { problem: string; fix: string } {
  const key = String(path[path.length - 1]);
  const nearest = nearestName(key, fields);
  const field = formatFieldPath(path);
  return {
    problem: `field "${field}": unknown field (${nearest === undefined ? `${what} ${fields.join(', ')}` : `did you mean "${nearest}"?`})`,
    fix: nearest === undefined ? `remove "${key}" from the line: an unknown field is refused rather than dropped unread` : `rename "${key}" to "${nearest}"`,
  };
}

/**
 * The candidate a misspelling most likely meant: fewest edits (a swap of two neighbours is one, as "trail" for
 * "trial"), case and "_" ignored, and only when the edits are few for the candidate's length.
 */
function nearestName(name: string, candidates: readonly string[]): string | undefined {
  const plain = (text: string): string => text.toLowerCase().replaceAll('_', '');
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(plain(name), plain(candidate));
    if (distance <= Math.max(1, Math.floor(candidate.length / 3)) && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

function lineError(path: string, lineNumber: number, problem: string, fix?: string): ConfigError {
  return new ConfigError('input.invalid', `replay file ${path} line ${lineNumber} ${problem}`, {
    fix: fix ?? 'each line must be {"taskId": "...", "turns": [{"content": "...", "toolCalls": [{"name": "...", "arguments": {...} or "argumentsText": "..."}]}]} or {"taskId": "...", "output": "..."}',
  });
}

/** Lines are read back while the run goes: a file rewritten meanwhile would replay other outputs than were checked. */
function changedError(path: string, lineNumber: number, problem: string): ConfigError {
  return new ConfigError('input.invalid', `replay file ${path} changed while the run was reading it: line ${lineNumber} no longer reads as checked (${problem})`, {
    fix: 'leave the replay file unchanged while a run replays it; write new outputs to a new file',
  });
}

/**
 * Stored model outputs, one JSON object per line: a multi-turn script
 * `{"taskId", "turns": [{"content", "toolCalls": [{"name", "arguments" | "argumentsText"}]}]}` or a
 * one-shot `{"taskId", "output"}`; an optional `"trial"` pins a line to one trial.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { parseJsonLines } from '../../core/json-lines.ts';

const replayToolCallSchema = z.strictObject({
  id: z.string().min(1).optional(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
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

const replayLineSchema = z.union([
  z.object({ taskId: z.string().min(1), trial: z.number().int().nonnegative().optional(), turns: z.array(replayTurnSchema) }),
  z.object({ taskId: z.string().min(1), trial: z.number().int().nonnegative().optional(), output: z.string() }),
]);

export type ReplayToolCall = z.infer<typeof replayToolCallSchema>;
export type ReplayTurn = z.infer<typeof replayTurnSchema>;
export type ReplayLine = z.infer<typeof replayLineSchema>;
export type ReplayEntry = { lineNumber: number; line: ReplayLine };

export function readReplayFile(path: string): ReplayEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('input.unreadable', `cannot read replay file ${path}: ${(error as Error).message}`, {
      fix: 'pass an existing JSONL file: replay/<path/to/outputs.jsonl>', cause: error,
    });
  }
  return parseReplayLines(text, path);
}

export function parseReplayLines(text: string, path: string): ReplayEntry[] {
  const entries: ReplayEntry[] = [];
  const seen = new Map<string, number>();
  const lines = parseJsonLines(text, (lineNumber, message) => {
    throw lineError(path, lineNumber, `is not valid JSON (${message})`);
  });
  for (const { lineNumber, value } of lines) {
    const parsed = replayLineSchema.safeParse(value);
    if (!parsed.success) throw lineError(path, lineNumber, describeLineIssue(value, parsed.error));
    const key = `${parsed.data.taskId}\u0000${parsed.data.trial ?? ''}`;
    const previous = seen.get(key);
    if (previous !== undefined) {
      throw lineError(path, lineNumber, `repeats taskId '${parsed.data.taskId}'${parsed.data.trial === undefined ? '' : ` trial ${parsed.data.trial}`} already on line ${previous}`);
    }
    seen.set(key, lineNumber);
    entries.push({ lineNumber, line: parsed.data });
  }
  return entries;
}

/** Names the offending field; for the union, the issue of the branch the line was meant to be. */
function describeLineIssue(value: unknown, error: z.ZodError): string {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject) return 'must be a JSON object with "taskId" and either "turns" or "output"';
  const record = value as Record<string, unknown>;
  if (!('turns' in record) && !('output' in record)) return 'field "turns" or "output": one of them is required';
  const branch = 'turns' in record
    ? replayLineSchema.options[0].safeParse(value)
    : replayLineSchema.options[1].safeParse(value);
  const issues = branch.success ? error.issues : branch.error.issues;
  return issues.slice(0, 3).map((issue) => `field "${issue.path.map(String).join('.') || '(line)'}": ${issue.message}`).join('; ');
}

function lineError(path: string, lineNumber: number, problem: string): ConfigError {
  return new ConfigError('input.invalid', `replay file ${path} line ${lineNumber} ${problem}`, {
    fix: 'each line must be {"taskId": "...", "turns": [{"content": "...", "toolCalls": [{"name": "...", "arguments": {...}}]}]} or {"taskId": "...", "output": "..."}',
  });
}

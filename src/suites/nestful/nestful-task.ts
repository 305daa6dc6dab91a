/**
 * A NESTFUL sample as a ToolForge task: the sequence prompt, the tools as JSON Schema (for calls and
 * react modes), the hidden gold (call list and answer in `json.dumps` form) and the DAG statistics.
 */
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { checkOnce } from '../../core/checked-once.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { Mode } from '../../core/mode.ts';
import type { Task } from '../../core/task.ts';
import type { NestfulReference } from './evaluate-sample.ts';
import { referenceStats } from './evaluate-sample.ts';
import { sequencePrompt } from './nestful-prompt.ts';
import type { NestfulSample, NestfulTool } from './nestful-sample.ts';
import { toToolSpec } from './nestful-sample.ts';
import { checkExecutable } from './score-predictions.ts';
import { memoizeByObject } from '../../core/memoize-by-object.ts';
import { formatFieldPath } from '../../core/field-path.ts';

export const nestfulSuiteId = 'nestful';
export const nestfulSuiteVersion = '1.1.0';

const toolSchema = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  output_parameters: z.record(z.string(), z.unknown()),
});

export const expectedSchema = z.object({
  sampleId: z.string(),
  flavour: z.enum(['math', 'code', 'v1']),
  outputJson: z.string(),
  goldAnswerJson: z.string().nullable(),
  tools: z.array(toolSchema),
  executable: z.boolean(),
  nonExecutableReason: z.string().optional(),
});
export type NestfulExpected = z.infer<typeof expectedSchema>;

/** The task's hidden gold, validated (task files come from disk): parsed once per task object, not per read. */
export const nestfulExpected: (task: Task) => NestfulExpected = memoizeByObject(parseNestfulExpected);

function parseNestfulExpected(task: Task): NestfulExpected {
  // Checked once per task object (a run checks it as the task enters, with this schema); the original, not a parsed
  // copy: the schema has no defaults or transforms, readers read only the keys it names, and a copy doubles a held task.
  const error = checkOnce(expectedSchema, task.expected);
  if (error) {
    const issue = error.issues[0];
    throw new ConfigError('suite.invalid-task', `task ${task.id}: ${formatFieldPath(issue?.path ?? [], 'expected')} ${issue?.message ?? 'is invalid'}`, {
      fix: 'regenerate the task file with this version of toolforge',
    });
  }
  return task.expected as NestfulExpected;
}

export function referenceOf(task: Task): NestfulReference {
  const expected = nestfulExpected(task);
  return {
    outputJson: expected.outputJson,
    goldAnswerJson: expected.goldAnswerJson,
    tools: expected.tools as NestfulTool[],
    executable: expected.executable,
  };
}

export type TaskOrigin = { id: string; seed: number; params: JsonObject; iclCount: number };

export function buildNestfulTask(sample: NestfulSample, origin: TaskOrigin): Task {
  const check = checkExecutable(sample);
  const reference: NestfulReference = { ...sample, executable: check.executable };
  const stats = referenceStats(reference);
  const modes: Mode[] = check.executable ? ['sequence', 'calls', 'react'] : ['sequence'];
  const expected: JsonObject = {
    sampleId: sample.sampleId,
    flavour: sample.flavour,
    outputJson: sample.outputJson,
    goldAnswerJson: sample.goldAnswerJson,
    tools: sample.tools as unknown as JsonValue,
    executable: check.executable,
  };
  if (!check.executable) expected.nonExecutableReason = check.reason;
  return {
    schemaVersion: 1,
    id: origin.id,
    suite: { id: nestfulSuiteId, version: nestfulSuiteVersion },
    seed: origin.seed,
    params: origin.params,
    prompt: sequencePrompt(sample.input, sample.tools, origin.iclCount),
    query: sample.input,
    tools: sample.tools.map(toToolSpec),
    modes,
    expected,
    // Interactive modes get room for a few failed calls beyond the gold length.
    limits: { maxTurns: 2 * stats.calls + 6, maxToolCalls: 2 * stats.calls + 6, timeLimitMs: 300_000 },
    stats: {
      calls: stats.calls,
      depth: stats.depth,
      dependencies: stats.dependencies,
      maxFanIn: stats.maxFanIn,
      pattern: stats.pattern,
      tools: sample.tools.length,
      flavour: sample.flavour,
      executable: check.executable,
    },
  };
}

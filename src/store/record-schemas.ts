/**
 * zod schemas for what crosses the store's file boundary (JSONL import). Our own database rows are
 * written by this code and read back without re-validation; imported files are anyone's.
 */
import { z } from 'zod';
import { failureCodeSchema } from '../core/failure.ts';
import { modeSchema } from '../core/mode.ts';
import { terminationSchema } from '../core/termination.ts';
import { taskSchema } from '../core/task.ts';

const jsonObjectSchema = z.record(z.string(), z.unknown());

export const generationSettingsSchema = z.object({
  temperature: z.number().optional(),
  topP: z.number().optional(),
  maxOutputTokens: z.number().int().optional(),
  seed: z.number().int().optional(),
  stop: z.array(z.string()).optional(),
  strictTools: z.boolean().optional(),
});

const taskSelectionSchema = z.object({ taskIds: z.array(z.string()).optional(), limit: z.number().int().nonnegative().optional() });

export const storedTaskRecipeSchema = z.object({
  seed: z.number().int(),
  count: z.number().int().positive().optional(),
  params: jsonObjectSchema,
  selection: taskSelectionSchema.optional(),
  transforms: z.array(z.string().min(1)).optional(),
  allowMissingOutputs: z.boolean().optional(),
});

export const storedTasksFileSchema = z.object({
  path: z.string().min(1),
  validate: z.boolean(),
  selection: taskSelectionSchema.optional(),
  allowMissingOutputs: z.boolean().optional(),
});

export const provenanceSchema = z.object({
  toolforgeVersion: z.string(),
  git: z.object({ commit: z.string(), isDirty: z.boolean() }).nullable(),
  nodeVersion: z.string(),
  platform: z.string(),
  suite: z.object({ id: z.string(), version: z.string() }),
  model: z.object({ ref: z.string(), baseUrl: z.string().nullable(), settings: generationSettingsSchema }),
  seed: z.number().int(),
  params: jsonObjectSchema,
  mode: modeSchema.nullable(),
  trials: z.number().int().positive(),
  cliArgs: z.array(z.string()),
  /** Replay runs started with --allow-missing: the planned episodes that had no stored output (scored as failures). */
  missingOutputs: z.array(z.string()).optional(),
  /** Each `run --resume`: when, with which endpoint and command line. */
  resumes: z.array(z.object({ at: z.string(), baseUrl: z.string().nullable(), cliArgs: z.array(z.string()) })).optional(),
  transforms: z.array(z.object({ id: z.string(), version: z.string(), knobs: jsonObjectSchema })).optional(),
  keepRaw: z.boolean().optional(),
  rescoredFrom: z.string().optional(),
  modelFile: z.string().optional(),
  taskRecipe: storedTaskRecipeSchema.optional(),
  tasksFile: storedTasksFileSchema.optional(),
});

export const storedRunSchema = z.object({
  schemaVersion: z.literal(1),
  id: z.string().regex(/^[A-Za-z0-9._-]+$/, 'run ids use letters, digits, ".", "_" and "-"'),
  createdAt: z.string(),
  suite: z.object({ id: z.string().min(1), version: z.string().min(1) }),
  model: z.string().min(1),
  baseUrl: z.string().nullable(),
  mode: modeSchema.nullable(),
  trials: z.number().int().positive(),
  concurrency: z.number().int().positive(),
  seed: z.number().int(),
  params: jsonObjectSchema,
  settings: generationSettingsSchema,
  provenance: provenanceSchema,
  status: z.enum(['running', 'finished', 'cancelled', 'failed']),
  taskCount: z.number().int().nonnegative(),
});

const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  argumentsText: z.string(),
  arguments: jsonObjectSchema.optional(),
  parseError: z.string().optional(),
});

const toolResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), output: z.unknown() }),
  z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string() }) }),
]);

export const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string(), toolCalls: z.array(toolCallSchema), reasoning: z.string().optional() }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), toolName: z.string(), result: toolResultSchema }),
]);

export const scoreSchema = z.object({
  value: z.number().min(0).max(1),
  passed: z.boolean(),
  reason: z.string(),
  failure: failureCodeSchema.optional(),
  failureCounts: z.partialRecord(failureCodeSchema, z.number()).optional(),
  details: jsonObjectSchema.optional(),
});

export const episodeRecordSchema = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  taskId: z.string().min(1),
  model: z.string(),
  mode: modeSchema,
  trial: z.number().int().nonnegative(),
  status: z.enum(['scored', 'infrastructure-error', 'cancelled']),
  termination: terminationSchema.nullable(),
  messages: z.array(messageSchema),
  score: scoreSchema.nullable(),
  usage: z.object({ inputTokens: z.number().nonnegative(), outputTokens: z.number().nonnegative() }),
  attempts: z.number().int().positive(),
  startedAt: z.string(),
  endedAt: z.string(),
  durationMs: z.number().nonnegative(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  retries: z.record(z.string(), z.number().int().nonnegative()).optional(),
  // Kept since store schema 2; files exported before have none.
  finalState: z.unknown().default(null),
  calls: z.array(jsonObjectSchema).default([]),
  warnings: z.array(z.object({ turn: z.number().int(), type: z.string(), message: z.string() })).default([]),
  raw: z.array(z.object({ turn: z.number().int(), request: z.unknown(), response: z.unknown() })).optional(),
});

/** One line of a run's JSONL export: the run header first, then its tasks, then its episodes. */
export const exportLineSchema = z.discriminatedUnion('type', [
  // `trailer`: the file ends with an end line counting its lines (exports since the end line; older ones have neither).
  z.object({ type: z.literal('run'), run: storedRunSchema, trailer: z.literal(true).optional(), tasksComplete: z.literal(false).optional() }),
  z.object({ type: z.literal('task'), ordinal: z.number().int().nonnegative(), task: taskSchema }),
  z.object({ type: z.literal('episode'), episode: episodeRecordSchema }),
  z.object({ type: z.literal('end'), tasks: z.number().int().nonnegative(), episodes: z.number().int().nonnegative() }),
]);

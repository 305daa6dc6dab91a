import { z } from 'zod';
import { acceptQuicklyWhen } from './checked-once.ts';
import type { JsonObject, JsonValue } from './json.ts';
import type { Limits } from './limits.ts';
import { limitsSchema } from './limits.ts';
import type { PromptMessage } from './message.ts';
import { promptMessageSchema } from './message.ts';
import type { Mode } from './mode.ts';
import { modeSchema } from './mode.ts';
import type { ToolSpec } from './tool.ts';
import { toolSpecSchema } from './tool.ts';
import { isWellFormedTask } from './well-formed-task.ts';

/**
 * One self-contained, serialisable unit of evaluation. Same suite version + seed + params give a
 * byte-identical task. `expected` is hidden ground truth: never shown to the model.
 */
export type Task = {
  schemaVersion: 1;
  /** Stable id: suite + seed + index for generated tasks, suite + source id for imported ones. */
  id: string;
  suite: { id: string; version: string };
  seed: number;
  /** The difficulty knobs (and data source) used to make it. */
  params: JsonObject;
  prompt: PromptMessage[];
  /**
   * The user's request alone, as it appears verbatim inside `prompt` (or `starter`); the rest of the
   * prompt is the suite's scaffolding (instructions, examples, tool text). A perturbation rewrites
   * the request with `replaceQuery` (src/transforms/query.ts) and nothing else. Absent in task files
   * written before it existed.
   */
  query?: string;
  /** The tools the model is told about (a transform may rename or reshape them; the environment enforces its own). */
  tools: ToolSpec[];
  /** Documentation and starter code for code tasks. */
  docs?: string;
  starter?: string;
  /** Supported interaction modes; the first is the default. */
  modes: Mode[];
  /** JSON; its shape is the suite's `expectedSchema`, checked once when tasks are read. */
  expected: unknown;
  limits: Limits;
  /** Descriptive statistics (calls, depth, bindings, ...). */
  stats: JsonObject;
  /**
   * Where a derived task came from: the id of the task it was made from and the transforms applied
   * to it, in order (absent on a suite's own tasks). Paired comparisons pair by `taskId`.
   */
  origin?: TaskOrigin;
};

/** One transform as applied to a task: enough to rebuild its environment wrapper and explain it. */
export type TransformRecord = {
  id: string;
  version: string;
  /** Knob values, defaults filled. */
  knobs: JsonObject;
  /** What it changed (e.g. the rename map), read back by its environment wrapper and model adapter. */
  changes: JsonObject;
};

export type TaskOrigin = {
  taskId: string;
  /** taskDigest() of the source task, so a derived task pairs only with the exact task it came from. */
  taskDigest: string;
  transforms: TransformRecord[];
};

export const transformRecordSchema = z.object({
  id: z.string().min(1),
  version: z.string().min(1),
  knobs: z.record(z.string(), z.unknown()),
  changes: z.record(z.string(), z.unknown()),
});

export const taskSchema = z.object({
  schemaVersion: z.literal(1),
  id: z.string().min(1),
  suite: z.object({ id: z.string().min(1), version: z.string().min(1) }),
  seed: z.number().int(),
  params: z.record(z.string(), z.unknown()),
  prompt: z.array(promptMessageSchema).min(1),
  query: z.string().optional(),
  tools: z.array(toolSpecSchema),
  docs: z.string().optional(),
  starter: z.string().optional(),
  modes: z.array(modeSchema).min(1),
  expected: z.unknown(),
  limits: limitsSchema,
  stats: z.record(z.string(), z.unknown()),
  origin: z.object({ taskId: z.string().min(1), taskDigest: z.string().min(1), transforms: z.array(transformRecordSchema) }).optional(),
}).superRefine((task, context) => {
  // Tool names may repeat (NESTFUL's glaive data lists identical specs twice): calls mode offers each name once.
  const modes = new Set<string>();
  task.modes.forEach((mode, index) => {
    if (modes.has(mode)) context.addIssue({ code: 'custom', path: ['modes', index], message: `'${mode}' is listed twice` });
    modes.add(mode);
  });
});

// Tasks are checked by the thousand (generated, read from files): the quick test spares zod's copy of each.
acceptQuicklyWhen(taskSchema, isWellFormedTask);

/**
 * A webapi task: the prompt (instructions + starter code), and as hidden ground truth the expected
 * request config with the spec it is judged against.
 */
import { z } from 'zod';
import { ToolForgeError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Task } from '../../core/task.ts';
import type { Endpoint, Setup } from './prompt.ts';
import { codeGenerationPrompt, starterCode } from './prompt.ts';
import type { RequestConfig } from './request-config.ts';
import { requestConfigSchema } from './request-config.ts';
import { driftOperatorIds } from '../../transforms/drift/drift-operators.ts';
import { formatFieldPath } from '../../core/field-path.ts';

export const webapiSuiteId = 'webapi';
export const webapiSuiteVersion = '3';

export const webapiExpectedSchema = z.object({
  api: z.string().min(1),
  /** The spec file, as a portable path (see portable-path.ts). */
  spec: z.string().min(1),
  config: requestConfigSchema,
  setup: z.enum(['full', 'argument']),
  endpoint: z.enum(['chat', 'completions']),
  /** The source data's cross-check verdict, when imported. */
  checks: z.string().optional(),
  /**
   * Set by `--transform drift` (schema drift): the spec is judged as drifted by these (see drifted-spec.ts), and
   * `config` is the request the drifted API expects. The prompt still shows the old API.
   */
  drift: z.object({ operator: z.enum(driftOperatorIds), seed: z.number().int(), probability: z.number().min(0).max(1) }).optional(),
});
export type WebapiExpected = z.infer<typeof webapiExpectedSchema>;
export type WebapiDrift = NonNullable<WebapiExpected['drift']>;

export function readWebapiExpected(task: Task): WebapiExpected {
  const parsed = webapiExpectedSchema.safeParse(task.expected);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ToolForgeError('suite.invalid-task', `task '${task.id}': ${formatFieldPath(issue?.path ?? [], 'expected')}: ${issue?.message ?? 'invalid'}`, {
      fix: 'regenerate the task file with this version of toolforge',
    });
  }
  return parsed.data;
}

export type WebapiTaskInput = {
  id: string;
  seed: number;
  params: JsonObject;
  api: string;
  apiName: string;
  specReference: string;
  task: string;
  config: RequestConfig;
  setup: Setup;
  endpoint: Endpoint;
  checks?: string;
  stats: JsonObject;
};

export function buildWebapiTask(input: WebapiTaskInput): Task {
  const starter = starterCode(input.task, input.setup, input.config);
  const expected: WebapiExpected = {
    api: input.api,
    spec: input.specReference,
    config: input.config,
    setup: input.setup,
    endpoint: input.endpoint,
    ...(input.checks !== undefined ? { checks: input.checks } : {}),
  };
  return {
    schemaVersion: 1,
    id: input.id,
    suite: { id: webapiSuiteId, version: webapiSuiteVersion },
    seed: input.seed,
    params: input.params,
    prompt: [{ role: 'user', content: codeGenerationPrompt({ apiName: input.apiName, endpoint: input.endpoint, starter }) }],
    query: input.task,
    tools: [],
    starter,
    modes: ['code'],
    expected,
    // One generation; the time budget covers the model call, the sandbox has its own limit.
    limits: { maxTurns: 1, maxToolCalls: 1, timeLimitMs: 300_000 },
    stats: input.stats,
  };
}

/**
 * A stateful task: the prompt (documentation, instruction, preloaded names) and, as hidden ground truth, the
 * generated program (its fixtures, paths and reference body) with the test cases its oracle recorded.
 */
import { z } from 'zod';
import { ToolForgeError } from '../../core/errors.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { Task } from '../../core/task.ts';
import type { ToolSpec } from '../../core/tool.ts';
import { statefulPrompt, type StatefulTaskData } from './generate-stateful-tasks.ts';
import type { TestCase } from './oracle.ts';
import type { StatefulProgram } from './program-generator.ts';
import { scenarioIds } from './stateful-backend.ts';

export const statefulSuiteId = 'stateful';
// 2: voice tasks offer mode calls (the voice lab's tools, and limits for a tool loop).
export const statefulSuiteVersion = '2';

const testCaseSchema = z.object({
  initBlock: z.string(),
  branch: z.enum(['if', 'else', 'none']),
  expected: z.object({ result: z.unknown(), state: z.unknown() }),
});

export const statefulExpectedSchema = z.object({
  scenario: z.enum(scenarioIds),
  /** The generated program (StatefulProgram as JSON): builtin/random rebuilds its initial state from it. */
  program: z.object({
    scenario: z.enum(scenarioIds),
    initSeed: z.number().int(),
    preamble: z.array(z.string()),
    declarations: z.array(z.unknown()),
    body: z.string(),
    fixtures: z.unknown(),
    paths: z.array(z.array(z.string())).min(1),
    calls: z.array(z.unknown()),
  }).passthrough(),
  /** One per execution path the oracle recorded: the model's program must pass every one. */
  testCases: z.array(testCaseSchema).min(1),
});

export type StatefulExpected = { scenario: StatefulProgram['scenario']; program: StatefulProgram; testCases: TestCase[] };

export function readStatefulExpected(task: Task): StatefulExpected {
  const parsed = statefulExpectedSchema.safeParse(task.expected);
  if (!parsed.success) {
    throw new ToolForgeError('input.invalid', `task '${task.id}': expected is not a stateful ground truth: ${parsed.error.issues[0]?.message ?? ''}`, {
      fix: 'regenerate the task with `toolforge generate stateful`',
    });
  }
  return parsed.data as unknown as StatefulExpected;
}

/** Drops undefined fields (a straight-line program has no branch), so the task survives JSON unchanged. */
function asJson<T>(value: T): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

/**
 * `callsTools`: the scenario's tools when it also offers mode `calls` (voice: its MCP server's tools, see
 * voice/voice-calls.ts); the model then calls them natively, at most three calls per call of the reference's paths.
 */
export function buildStatefulTask(data: StatefulTaskData, seed: number, params: JsonObject, phrasing: JsonObject, callsTools?: ToolSpec[]): Task {
  const longestPath = Math.max(...data.program.paths.map((path) => path.length));
  return {
    schemaVersion: 1,
    id: data.id,
    suite: { id: statefulSuiteId, version: statefulSuiteVersion },
    seed,
    params,
    prompt: [{ role: 'user', content: statefulPrompt(data) }],
    query: data.instruction,
    tools: callsTools ?? [],
    modes: callsTools ? ['code', 'calls'] : ['code'],
    expected: asJson({ scenario: data.scenario, program: data.program, testCases: data.testCases }),
    // Mode code: one model call, then the program runs once per test case (each on a fresh backend).
    limits: callsTools
      ? { maxTurns: 3 * longestPath + 2, maxToolCalls: 3 * longestPath, timeLimitMs: 120_000 }
      : { maxTurns: 1, maxToolCalls: 1, timeLimitMs: 120_000 },
    stats: asJson({ scenario: data.scenario, ...data.statistics, testCases: data.testCases.length, ...phrasing }) as JsonObject,
  };
}

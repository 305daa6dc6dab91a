/**
 * A stateful episode's world (mode code). The program host runs the model's program once per test case, each
 * time after that test case's initialization block and against a fresh backend built from the task's fixtures;
 * when a run ends, its RESULT (resolved: tensor and speech handles become their contents) and the backend's end
 * state are kept. The end state (`finalState`) is those observations, one per test case: the scorer judges them
 * without running anything.
 */
import type { Environment } from '../../core/environment.ts';
import type { JsonValue } from '../../core/json.ts';
import type { ExtractedProgram, ProgramVariant } from '../../core/program-host.ts';
import type { ProgramResult } from '../../core/program.ts';
import type { Task } from '../../core/task.ts';
import { composeProgram } from './program-generator.ts';
import type { StatefulBackend } from './stateful-backend.ts';
import { statefulScenarios } from './stateful-scenarios.ts';
import { readStatefulExpected } from './stateful-task.ts';

/** What one run of the model's program against one test case left (JSON, stored as the episode's end state). */
export type StoredObservation = {
  status: ProgramResult['status'];
  error?: { name: string; message: string };
  /** RESULT in comparable form (null when the program did not complete). */
  result: JsonValue;
  /** Why RESULT reads as null though the program set it: it could not be read as JSON (a cycle, a BigInt, ...). */
  resultError?: string;
  state: JsonValue;
};

/** The episode's end state: one entry per test case, null for a test case the program never ran on. */
export type StatefulEndState = { testCases: (StoredObservation | null)[] };

/** Generous: every binding call and HTTP request is a round trip to the host, slow on a loaded machine. */
export const programTimeLimitMs = 10_000;

/** The first fenced code block of the answer, else the whole answer; nothing when it is blank. */
export function extractStatefulProgram(answer: string): ExtractedProgram {
  const fenced = /```[^\n`]*\n([\s\S]*?)(?:```|$)/.exec(answer);
  const code = fenced ? fenced[1] : answer;
  return code.trim() === '' ? { type: 'none', reason: 'the answer holds no code', text: answer } : { type: 'program', code };
}

function observe(result: ProgramResult, backend: StatefulBackend): StoredObservation {
  const state = backend.snapshotState();
  if (result.status === 'completed') {
    return { status: result.status, result: backend.resolveResult(result.value), ...(result.valueError === undefined ? {} : { resultError: result.valueError }), state };
  }
  return { status: result.status, ...(result.status === 'error' ? { error: { name: result.error.name, message: result.error.message } } : {}), result: null, state };
}

export function createStatefulEnvironment(task: Task): Environment {
  const expected = readStatefulExpected(task);
  const definition = statefulScenarios[expected.scenario];
  const observations: (StoredObservation | null)[] = expected.testCases.map(() => null);
  const variants: ProgramVariant[] = expected.testCases.map((testCase, index) => ({
    label: `test case ${index + 1} (${testCase.branch === 'none' ? 'no branch' : `${testCase.branch}-branch`})`,
    async open() {
      const backend = await definition.createBackend(expected.program.fixtures);
      return {
        code: (program: string) => composeProgram(testCase.initBlock, program),
        functions: backend.bindings,
        // Every scenario sets http: without it the sandbox would answer requests with a canned 200.
        ...(backend.http ? { http: { respond: backend.http } } : {}),
        async close(result: ProgramResult | null) {
          try {
            observations[index] = result === null ? null : observe(result, backend);
          } finally {
            await backend.dispose();
          }
        },
      };
    },
  }));
  return {
    listTools: () => [],
    callTool: async () => ({ ok: false, error: { code: 'tool.unknown', message: 'stateful tasks in mode code have no tools: answer with code' } }),
    bindings: () => ({ functions: {}, timeLimitMs: programTimeLimitMs, extractProgram: extractStatefulProgram, variants }),
    snapshotState: async (): Promise<JsonValue> => ({ testCases: observations } satisfies StatefulEndState as unknown as JsonValue),
    dispose: async () => undefined,
  };
}

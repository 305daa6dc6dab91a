/**
 * The structured record of what an episode did, the same in every mode: each tool call the
 * environment received (calls and react modes, and host functions a program called) and each
 * program run (code mode). Scorers may read it (`ScoreInput.calls`); it is stored with the episode.
 * Timing is wall-clock and for humans only: scorers must not read it.
 */
import type { JsonObject, JsonValue } from './json.ts';
import type { ProgramRun } from './program-host.ts';
import type { ToolResult } from './tool.ts';

export type CallTiming = {
  /** Milliseconds from the episode's start. */
  startMs: number;
  durationMs: number;
};

export type CallRecord =
  | ({ type: 'tool'; name: string; argumentsText: string; arguments: JsonObject | null; parseError?: string; result: ToolResult } & CallTiming)
  | ({ type: 'binding'; name: string; arguments: JsonValue[]; result: BindingOutcome } & CallTiming)
  | ({ type: 'program' } & ProgramRun & CallTiming);

/** What a host function gave the program: its value (JSON), or the message of what it threw. */
export type BindingOutcome = { ok: true; output: JsonValue | null } | { ok: false; error: string };

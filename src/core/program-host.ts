/**
 * What an environment offers a model-written program (Environment.bindings()). The code agent
 * (src/agents/code.ts) asks it for the program inside the model's answer, runs that program in the
 * runner's sandbox with these functions and HTTP handling, and reports the run back through
 * `observe`, so the environment's end state can include it.
 */
import type { Bindings, HttpResponder, HttpResponse, ProgramResult } from './program.ts';

/** The program to run, or why the answer holds none (then nothing runs; `text` is what was found). */
export type ExtractedProgram =
  | { type: 'program'; code: string }
  | { type: 'none'; reason: string; text: string };

export type ProgramHost = {
  /** Host functions reachable from the program, by global name or namespace (`increment()`, `api.x()`). */
  functions: Bindings;
  /** HTTP the program sends is recorded, never sent: answered by `respond`; 'stop-after-first-request' ends the run at the first. */
  http?: { respond?: HttpResponse | HttpResponder; excessCode?: 'run-all' | 'stop-after-first-request' };
  /** The program's wall-clock budget (default: the sandbox's). */
  timeLimitMs?: number;
  /** The program inside the model's final answer. */
  extractProgram(answer: string): ExtractedProgram;
  /** Told what ran (result null when nothing did), once per episode, before snapshotState(). */
  observe?(run: ProgramRun): void;
};

/** One program run of a code episode, as the episode's call record keeps it. */
export type ProgramRun = {
  extraction: ExtractedProgram;
  /** The sandbox's verdict; null when no program was extracted (or the episode stopped before it ran). */
  result: ProgramResult | null;
  /** Sandbox runs it took (a sandbox crash re-runs the program, never the model call). */
  attempts: number;
};

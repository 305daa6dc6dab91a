/**
 * What an environment offers a model-written program (Environment.bindings()). The code agent
 * (src/agents/code.ts) asks it for the program inside the model's answer, runs that program in the
 * runner's sandbox with these functions and HTTP handling, and reports the run back through
 * `observe`, so the environment's end state can include it.
 */
import type { Bindings, HttpResponder, HttpResponse, ProgramResult } from './program.ts';

type HttpHandling = { respond?: HttpResponse | HttpResponder; excessCode?: 'run-all' | 'stop-after-first-request' };

/** The program to run, or why the answer holds none (then nothing runs; `text` is what was found). */
export type ExtractedProgram =
  | { type: 'program'; code: string }
  | { type: 'none'; reason: string; text: string };

export type ProgramHost = {
  /** Host functions reachable from the program, by global name or namespace (`increment()`, `api.x()`). */
  functions: Bindings;
  /** HTTP the program sends is recorded, never sent: answered by `respond`; 'stop-after-first-request' ends the run at the first. */
  http?: HttpHandling;
  /** The program's wall-clock budget (default: the sandbox's). */
  timeLimitMs?: number;
  /** The program inside the model's final answer. */
  extractProgram(answer: string): ExtractedProgram;
  /**
   * Run the program once per variant instead of once against `functions`/`http` (e.g. once per test case, each on
   * fresh state, as StateEval judges a program). Absent: one run, as before.
   */
  variants?: readonly ProgramVariant[];
  /** Told what ran (result null when nothing did), once per episode, before snapshotState(). */
  observe?(run: ProgramRun): void;
};

/** One of several runs of the same program, each in a world of its own. */
export type ProgramVariant = {
  /** Names the run in the call record (e.g. 'test case 2 (else-branch)'). */
  label: string;
  /** A fresh world for one run; a crashed run is closed and the variant opened again. */
  open(): Promise<OpenedVariant>;
};

export type OpenedVariant = {
  /** The source the sandbox runs for the extracted program (e.g. a test case's initialization block + program). */
  code(program: string): string;
  functions: Bindings;
  http?: HttpHandling;
  /** Told how the run ended (null: it crashed or the episode stopped), then frees the world. Called exactly once. */
  close(result: ProgramResult | null): Promise<void>;
};

/** One variant's run, as the call record keeps it. */
export type VariantRun = { label: string; result: ProgramResult | null; attempts: number };

/** One program run of a code episode, as the episode's call record keeps it. */
export type ProgramRun = {
  extraction: ExtractedProgram;
  /** The sandbox's verdict; null when no program was extracted (or the episode stopped before it ran). */
  result: ProgramResult | null;
  /** Sandbox runs it took (a sandbox crash re-runs the program, never the model call). */
  attempts: number;
  /**
   * With ProgramHost.variants: every variant's run, in order (`result` is then the last run's, `attempts` the sum).
   * A variant the episode stopped before has result null.
   */
  variants?: VariantRun[];
};

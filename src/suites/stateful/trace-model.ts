/**
 * The state-machine vocabulary every scenario speaks (paper III-C): a scenario keeps a state schema (local
 * variables and the backend's implicit state) and, for the current state, lists the valid next transitions with
 * their parameters already solved. Applying a transition mutates the state and yields the JavaScript statements
 * that perform it.
 */
import type { JsonValue } from '../../core/json.ts';
import type { Rng } from '../../core/rng.ts';
import type { ScenarioId } from './stateful-backend.ts';

/** A variable of the initialization block: fixtures loaded, user values, hoisted constants. */
export type InitDeclaration = { name: string; code: string };

/**
 * What copies of a trace state share (the "global data structures" of III-D): the name counter, so that the two
 * branches never declare the same name, and the initialization block, which merges what either branch needed.
 */
export class SharedProgramParts {
  readonly declarations: InitDeclaration[] = [];
  readonly #counters = new Map<string, number>();

  /** `user_variable_0`, `response_3`...: one counter per prefix, shared by both branches. */
  name(prefix: string): string {
    const next = this.#counters.get(prefix) ?? 0;
    this.#counters.set(prefix, next + 1);
    return `${prefix}_${next}`;
  }

  declare(name: string, code: string): void {
    this.declarations.push({ name, code });
  }
}

/** One valid next transition with solved parameters. */
export type Candidate<State> = {
  /** The API (or local operation) name: the unit of pair and adjacent-transition coverage. */
  transition: string;
  /** False for local operations that are not API calls (they do not count toward the call budget). */
  isApiCall: boolean;
  /** State objects (variables, backend collections) the call consumes: each bridges a pair transition. */
  consumes: string[];
  /** Identifies the parameterisation: a trace never repeats the same (transition, parameters). */
  parameterKey: string;
  /** Mutates the state; returns the statements and the state objects it created. */
  apply(state: State): { statements: string[]; produces: string[] };
};

/** A condition on the most recent suitable variable: `lhs` evaluates to `value` at that point of the trace. */
export type BranchCondition = { lhs: string; value: JsonValue };

export type ScenarioState<State> = {
  clone(): State;
};

export type Scenario<State extends ScenarioState<State>> = {
  id: ScenarioId;
  /** Every API name (M in the ATC formula). */
  apis: readonly string[];
  /** RandomInit: fixtures and initial variables, declared in `shared`. */
  initialState(rng: Rng, shared: SharedProgramParts): State;
  candidates(state: State, rng: Rng): Candidate<State>[];
  /** Forced transitions near the end of the budget (reference postprocess), or undefined. */
  forced?(state: State, remainingCalls: number, rng: Rng): Candidate<State>[] | undefined;
  /** Scans variables newest first for one to branch on. */
  condition(state: State, rng: Rng): BranchCondition | undefined;
  /** The expression RESULT is set to at the end of a trace (reference postprocess_choose_result). */
  resultExpression(state: State): string | undefined;
  /** The backend's initial implicit state (stored in the task; the backend factory seeds from it). */
  fixtures(state: State): JsonValue;
  /** Lines declared before the initialization variables (e.g. `let BASE_URL = ...`). */
  preamble: readonly string[];
};

/**
 * Program generation (paper III-D, seeds-reference 6.3): an initialization block, a trace of API calls, and at a
 * sampled position (or none) one if/else whose condition compares the most recent suitable variable with a
 * constant hoisted into the initialization block. Both branches grow from copies of the trace state that share the
 * occurrence book and the name counter; each ends by setting RESULT, the sink the oracle reads.
 */
import type { JsonValue } from '../../core/json.ts';
import type { Rng } from '../../core/rng.ts';
import { OccurrenceBook } from './occurrence-book.ts';
import type { ScenarioId } from './stateful-backend.ts';
import { DeadEndError, generateSteps, TraceState, type CallRecord, type Guidance } from './trace-generator.ts';
import { SharedProgramParts, type InitDeclaration, type Scenario, type ScenarioState } from './trace-model.ts';

export const branchModes = ['sampled', 'none'] as const;
export type BranchMode = typeof branchModes[number];

export type ProgramKnobs = {
  /** API calls on every execution path (paper: 5). */
  calls: number;
  /** 'sampled': an if/else at a position drawn from 1..calls-1 or none; 'none': straight-line programs. */
  branch: BranchMode;
  guidance: Guidance;
};

export type ProgramBranch = {
  constantName: string;
  /** The condition's left-hand side (a JavaScript expression). */
  lhs: string;
  /** The constant's value at generation time: the if-branch runs with it. */
  value: JsonValue;
  /** Position: API calls before the if. */
  position: number;
};

export type StatefulProgram = {
  scenario: ScenarioId;
  /** Seed of the initialization block's draws: the same seed rebuilds the same initial state. */
  initSeed: number;
  preamble: string[];
  /** The initialization block's variables, the hoisted constant included (rendered with its value). */
  declarations: InitDeclaration[];
  branch: ProgramBranch | undefined;
  /** The reference program after the initialization block. */
  body: string;
  /** The backend's initial state. */
  fixtures: JsonValue;
  /** API names along each execution path: one path, or the if-path then the else-path. */
  paths: string[][];
  /** Every API call written in the program (prefix, then if-branch, then else-branch) with its data flow. */
  calls: CallRecord[];
};

export const indent = '  ';

function indented(lines: readonly string[]): string[] {
  return lines.flatMap((line) => line.split('\n')).map((line) => `${indent}${line}`);
}

function isPrimitive(value: JsonValue): boolean {
  return value === null || typeof value !== 'object';
}

/** The reference's reverse_if_condition: a string gains "_diff", a number +1, a list its first element again. */
export function flipConstant(value: JsonValue): JsonValue {
  if (typeof value === 'string') return `${value}_diff`;
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  if (Array.isArray(value)) return [...value, value[0] ?? 0];
  if (value === null) return 'not_null';
  return { ...value, flipped: true };
}

export function finishBranch<State extends ScenarioState<State>>(scenario: Scenario<State>, state: TraceState<State>, statements: string[]): string[] {
  const result = scenario.resultExpression(state.scenario);
  return result === undefined ? statements : [...statements, `RESULT = ${result};`];
}

/** One program; throws DeadEndError when the state machine runs out of valid transitions. */
export function generateProgram<State extends ScenarioState<State>>(
  scenario: Scenario<State>, knobs: ProgramKnobs, rng: Rng, book: OccurrenceBook,
): StatefulProgram {
  const shared = new SharedProgramParts();
  const initRng = rng.child('init');
  const initSeed = initRng.seed;
  const state = new TraceState(scenario.initialState(initRng, shared));
  const positions: (number | undefined)[] = knobs.branch === 'none' ? [undefined] : [...Array.from({ length: knobs.calls - 1 }, (_, index) => index + 1), undefined];
  const position = rng.pick(positions);
  const steps = { book, guidance: knobs.guidance, rng };
  if (position === undefined) {
    const body = finishBranch(scenario, state, generateSteps(scenario, state, knobs.calls, { ...steps, postprocess: true }));
    return { scenario: scenario.id, initSeed, preamble: [...scenario.preamble], declarations: shared.declarations, branch: undefined, body: body.join('\n'), fixtures: scenario.fixtures(state.scenario), paths: [state.apiCalls], calls: state.calls };
  }
  const prefix = generateSteps(scenario, state, position, { ...steps, postprocess: false });
  const condition = scenario.condition(state.scenario, rng);
  if (condition === undefined) {
    const rest = finishBranch(scenario, state, generateSteps(scenario, state, knobs.calls - position, { ...steps, postprocess: true }));
    return { scenario: scenario.id, initSeed, preamble: [...scenario.preamble], declarations: shared.declarations, branch: undefined, body: [...prefix, ...rest].join('\n'), fixtures: scenario.fixtures(state.scenario), paths: [state.apiCalls], calls: state.calls };
  }
  const constantName = shared.name('user_constant');
  shared.declare(constantName, `let ${constantName} = ${JSON.stringify(condition.value)};`);
  const skipPostprocess = rng.pick(['if', 'else'] as const);
  const ifState = state.clone();
  const elseState = state.clone();
  const remaining = knobs.calls - position;
  const ifBody = finishBranch(scenario, ifState, generateSteps(scenario, ifState, remaining, { ...steps, postprocess: skipPostprocess !== 'if' }));
  const elseBody = finishBranch(scenario, elseState, generateSteps(scenario, elseState, remaining, { ...steps, postprocess: skipPostprocess !== 'else' }));
  const test = isPrimitive(condition.value)
    ? `${condition.lhs} === ${constantName}`
    : `JSON.stringify(${condition.lhs}) === JSON.stringify(${constantName})`;
  const body = [...prefix, `if (${test}) {`, ...indented(ifBody), '} else {', ...indented(elseBody), '}'];
  return {
    scenario: scenario.id,
    initSeed,
    preamble: [...scenario.preamble],
    declarations: shared.declarations,
    branch: { constantName, lhs: condition.lhs, value: condition.value, position },
    body: body.join('\n'),
    fixtures: scenario.fixtures(state.scenario),
    paths: [ifState.apiCalls, elseState.apiCalls],
    calls: [...ifState.calls, ...elseState.calls.slice(state.calls.length)],
  };
}

/** The initialization block; `constant` replaces the hoisted constant's value (the flipped test case). */
export function renderInitBlock(program: Pick<StatefulProgram, 'preamble' | 'declarations' | 'branch'>, constant?: JsonValue): string {
  const lines = [...program.preamble];
  for (const declaration of program.declarations) {
    if (program.branch && declaration.name === program.branch.constantName && constant !== undefined) {
      lines.push(`let ${declaration.name} = ${JSON.stringify(constant)};`);
    } else {
      lines.push(declaration.code);
    }
  }
  lines.push('let RESULT = null;');
  return lines.join('\n');
}

/**
 * What the sandbox runs: the initialization block, then the program (the reference's or the model's) in its own
 * block, so its declarations may shadow initialization variables, then RESULT is returned.
 */
export function composeProgram(initBlock: string, body: string): string {
  return `${initBlock}\n{\n${body}\n}\nreturn RESULT;`;
}

export type GenerationRun = {
  book: OccurrenceBook;
  /** Attempts per program before giving up (dead ends are rare and depend on the draw). */
  attempts?: number;
};

/** The next program of a run: the book only keeps the counts of the attempt that succeeded. */
export function generateNextProgram<State extends ScenarioState<State>>(
  scenario: Scenario<State>, knobs: ProgramKnobs, rng: Rng, run: GenerationRun,
): { program: StatefulProgram; book: OccurrenceBook } {
  const attempts = run.attempts ?? 20;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const book = OccurrenceBook.fromJSON(run.book.toJSON());
    try {
      return { program: generateProgram(scenario, knobs, rng.child('attempt', attempt), book), book };
    } catch (error) {
      if (!(error instanceof DeadEndError)) throw error;
      lastError = error;
    }
  }
  throw lastError;
}

/**
 * Algorithm 1 (paper III-C) with the reference's selection rule (seeds-reference 6.2): at each step the scenario
 * lists the valid transitions with solved parameters; a candidate's pair transitions are (last transition on each
 * state object it consumes, candidate). Candidates with unseen pairs come first, chosen with weight = their number
 * of unseen pairs; otherwise weight = 1 / (min pair count + ε). Without coverage the choice is uniform (the
 * paper's w/o-COV ablation). A trace never repeats a (transition, parameters).
 */
import { ToolForgeError } from '../../core/errors.ts';
import type { Rng } from '../../core/rng.ts';
import { noPreviousTransition, OccurrenceBook, pairKey } from './occurrence-book.ts';
import type { Candidate, Scenario, ScenarioState } from './trace-model.ts';

const epsilon = 1e-7;

/** One API call of a program: what it read and which variables it created. */
export type CallRecord = { api: string; consumes: string[]; produces: string[] };

export type Guidance = 'coverage' | 'uniform';

/** A scenario state plus what the generator itself tracks; cloned at a branch point. */
export class TraceState<State extends ScenarioState<State>> {
  constructor(
    readonly scenario: State,
    /** The last transition applied to each state object (the pair bridge). */
    readonly lastTransition: Map<string, string> = new Map(),
    /** `(transition, parameterKey)` pairs already used in this trace. */
    readonly used: Set<string> = new Set(),
    /** API names of this trace, in order (for adjacent-transition coverage). */
    readonly apiCalls: string[] = [],
    /** The data flow of every API call (for path depth and binding count). */
    readonly calls: CallRecord[] = [],
  ) {}

  clone(): TraceState<State> {
    return new TraceState(this.scenario.clone(), new Map(this.lastTransition), new Set(this.used), [...this.apiCalls], [...this.calls]);
  }
}

/** The state the pairs are read from: the last transition on each object and the trace so far. */
export type PairContext = { lastTransition: Map<string, string>; apiCalls: readonly string[] };

/**
 * A candidate's pair transitions: one per consumed state object, bridged by that object (III-C, as the reference
 * does), plus Algorithm 1's literal pair (ô, o) with ô the trace's previous call, so that programs also vary in
 * which calls follow each other.
 */
export function candidatePairs<State>(state: PairContext, candidate: Candidate<State>): string[] {
  const previous = state.apiCalls.length > 0 ? state.apiCalls[state.apiCalls.length - 1] : noPreviousTransition;
  const bridged = candidate.consumes.map((object) => pairKey(state.lastTransition.get(object) ?? noPreviousTransition, candidate.transition));
  return [...new Set([...bridged, pairKey(previous, candidate.transition)])];
}

function weightedPick<T>(items: readonly T[], weights: readonly number[], rng: Rng): T {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let target = rng.float() * total;
  for (let index = 0; index < items.length; index += 1) {
    target -= weights[index];
    if (target < 0) return items[index];
  }
  return items[items.length - 1];
}

export function chooseCandidate<State>(
  state: PairContext,
  candidates: readonly Candidate<State>[],
  book: OccurrenceBook,
  guidance: Guidance,
  rng: Rng,
): Candidate<State> {
  if (guidance === 'uniform') return rng.pick(candidates);
  const pairs = candidates.map((candidate) => candidatePairs(state, candidate));
  const unseen = pairs.map((list) => list.filter((pair) => book.count(pair) === 0).length);
  const fresh = candidates.filter((_, index) => unseen[index] > 0);
  if (fresh.length > 0) return weightedPick(fresh, unseen.filter((count) => count > 0), rng);
  const weights = pairs.map((list) => 1 / (Math.min(...list.map((pair) => book.count(pair))) + epsilon));
  return weightedPick(candidates, weights, rng);
}

/** Thrown when no valid transition remains: the program is discarded and the next seed tried. */
export class DeadEndError extends ToolForgeError {
  constructor(message: string) {
    super('suite.unsolvable-task', message);
  }
}

export type StepOptions = { book: OccurrenceBook; guidance: Guidance; rng: Rng; postprocess: boolean };

/** Extends the trace by `calls` API calls; returns the statements. */
export function generateSteps<State extends ScenarioState<State>>(
  scenario: Scenario<State>,
  state: TraceState<State>,
  calls: number,
  options: StepOptions,
): string[] {
  const statements: string[] = [];
  let made = 0;
  let localSteps = 0;
  while (made < calls) {
    const forced = options.postprocess ? scenario.forced?.(state.scenario, calls - made, options.rng) : undefined;
    const available = (forced ?? scenario.candidates(state.scenario, options.rng))
      .filter((candidate) => !state.used.has(`${candidate.transition}(${candidate.parameterKey})`));
    if (available.length === 0) throw new DeadEndError(`${scenario.id}: no valid transition after ${state.apiCalls.join(', ')}`);
    const chosen = chooseCandidate(state, available, options.book, options.guidance, options.rng);
    for (const pair of candidatePairs(state, chosen)) options.book.record(pair);
    state.used.add(`${chosen.transition}(${chosen.parameterKey})`);
    const applied = chosen.apply(state.scenario);
    for (const object of [...chosen.consumes, ...applied.produces]) state.lastTransition.set(object, chosen.transition);
    statements.push(...applied.statements);
    if (chosen.isApiCall) {
      made += 1;
      state.apiCalls.push(chosen.transition);
      state.calls.push({ api: chosen.transition, consumes: chosen.consumes, produces: applied.produces });
    } else if (++localSteps > 4 * calls) {
      throw new DeadEndError(`${scenario.id}: too many local steps`);
    }
  }
  return statements;
}

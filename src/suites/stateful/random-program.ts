/**
 * A plausible but random program for a task (what `builtin/random` writes): the task's initial state is rebuilt
 * from its seed, then as many API calls as the reference makes on one path are drawn uniformly from the valid
 * transitions, and RESULT is set to the latest variable. It uses the right APIs on the right variables, so it
 * runs, but it does not do what the instruction asks: it should score near 0.
 */
import { Rng } from '../../core/rng.ts';
import { OccurrenceBook } from './occurrence-book.ts';
import { finishBranch, type StatefulProgram } from './program-generator.ts';
import { generateSteps, TraceState } from './trace-generator.ts';
import { SharedProgramParts, type Scenario, type ScenarioState } from './trace-model.ts';

export function randomProgramBody<State extends ScenarioState<State>>(scenario: Scenario<State>, program: StatefulProgram, rng: Rng): string {
  const state = new TraceState(scenario.initialState(new Rng(program.initSeed), new SharedProgramParts()));
  const statements = generateSteps(scenario, state, program.paths[0].length, { book: new OccurrenceBook(), guidance: 'uniform', rng, postprocess: true });
  return finishBranch(scenario, state, statements).join('\n');
}

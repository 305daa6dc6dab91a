/**
 * The three scenarios behind one interface, with their generic state types erased: how to generate a program,
 * build a backend for a test case, compare results, and the API documentation shown to the model.
 */
import type { Rng } from '../../core/rng.ts';
import type { OccurrenceBook } from './occurrence-book.ts';
import { generateNextProgram, type ProgramKnobs, type StatefulProgram } from './program-generator.ts';
import { randomProgramBody } from './random-program.ts';
import { sessionComparison, tensorComparison, voiceComparison, type Comparison } from './result-comparison.ts';
import { scenarioDocumentation } from './scenario-documentation.ts';
import { createSessionBackend } from './session/session-backend.ts';
import { sessionScenario } from './session/session-scenario.ts';
import type { BackendFactory, ScenarioId } from './stateful-backend.ts';
import { createTensorBackend } from './tensor/tensor-backend.ts';
import { tensorScenario } from './tensor/tensor-scenario.ts';
import type { Scenario, ScenarioState } from './trace-model.ts';
import { createVoiceBackend } from './voice/voice-backend.ts';
import { voiceScenario } from './voice/voice-scenario.ts';

export type ScenarioDefinition = {
  id: ScenarioId;
  /** Every API of the scenario (M in the ATC formula). */
  apis: readonly string[];
  createBackend: BackendFactory;
  comparison: Comparison;
  /** API documentation for the prompt (JavaScript usage). */
  documentation: string;
  /** The next program of a generation run; returns the updated occurrence book. */
  generateProgram(knobs: ProgramKnobs, rng: Rng, book: OccurrenceBook): { program: StatefulProgram; book: OccurrenceBook };
  /** A plausible random program body for a task (builtin/random). */
  randomProgramBody(program: StatefulProgram, rng: Rng): string;
};

function define<State extends ScenarioState<State>>(scenario: Scenario<State>, createBackend: BackendFactory, comparison: Comparison): ScenarioDefinition {
  return {
    id: scenario.id,
    apis: scenario.apis,
    createBackend,
    comparison,
    documentation: scenarioDocumentation[scenario.id],
    generateProgram: (knobs, rng, book) => generateNextProgram(scenario, knobs, rng, { book }),
    randomProgramBody: (program, rng) => randomProgramBody(scenario, program, rng),
  };
}

export const statefulScenarios: Record<ScenarioId, ScenarioDefinition> = {
  session: define(sessionScenario, createSessionBackend, sessionComparison),
  tensor: define(tensorScenario, createTensorBackend, tensorComparison),
  voice: define(voiceScenario, createVoiceBackend, voiceComparison),
};

/**
 * What every stateful scenario gives the suite for one test case: a fresh backend seeded from the task's fixtures.
 * Model code reaches it only through `bindings` (host functions) and, for REST scenarios, `http` (the sandbox's
 * axios/fetch responder). After the program ran, `resolveResult` turns the program's RESULT into comparable JSON
 * (tensor and speech handles become their contents) and `snapshotState` is the backend's end state.
 */
import type { JsonValue } from '../../core/json.ts';
import type { Bindings, HttpResponder } from '../../sandbox/spec.ts';

export const scenarioIds = ['session', 'tensor', 'voice'] as const;
export type ScenarioId = typeof scenarioIds[number];

export type StatefulBackend = {
  bindings: Bindings;
  /**
   * Pass as `http.respond` of the sandbox program: REST scenarios forward to their server, the others refuse
   * every request (without it the sandbox would answer requests with a canned 200).
   */
  http?: HttpResponder;
  resolveResult(value: JsonValue | undefined): JsonValue;
  snapshotState(): JsonValue;
  dispose(): Promise<void>;
};

/** Builds a fresh backend from a task's fixtures (the initial implicit state; JSON stored in the task). */
export type BackendFactory = (fixtures: JsonValue) => Promise<StatefulBackend>;

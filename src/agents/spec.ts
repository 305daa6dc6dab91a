import type { Environment } from '../core/environment.ts';
import type { Limits } from '../core/limits.ts';
import type { Message } from '../core/message.ts';
import type { Mode } from '../core/mode.ts';
import type { Task } from '../core/task.ts';
import type { Termination } from '../core/termination.ts';
import type { Usage } from '../core/usage.ts';
import type { GenerationSettings, LanguageModel, ModelSource } from '../models/spec.ts';
import type { EpisodeClock } from './episode-clock.ts';
import type { Sandbox } from '../sandbox/spec.ts';

export type AgentEvent =
  | { type: 'model-call-end'; turn: number; usage: Usage }
  | { type: 'tool-call-end'; name: string; ok: boolean };

export type AgentContext = {
  model: LanguageModel;
  environment: Environment;
  limits: Limits;
  settings: GenerationSettings;
  signal: AbortSignal;
  /**
   * The runner's clock for `limits.timeLimitMs` (stopped while a provider is waited on); pass it to
   * startEpisodeBudget. Absent when an agent runs on its own: the budget then starts its own.
   */
  clock?: EpisodeClock;
  /** The run's sandbox for model-written programs, created on first use and disposed by the runner. */
  sandbox(): Sandbox;
  emit(event: AgentEvent): void;
};

export type AgentOutcome = { termination: Termination; messages: Message[]; usage: Usage };

/**
 * A loop that drives a model against an environment. Model faults end as a termination (and are
 * scored); a thrown error is infrastructure (the runner retries it and never scores it).
 */
export interface Agent {
  readonly id: string;
  readonly mode: Mode;
  run(task: Task, context: AgentContext): Promise<AgentOutcome>;
}

/**
 * A model source that brings its own agent (an external agent reached over MCP, src/mcp/): the runner
 * uses `createAgent` instead of the suite's or the generic agent of the mode.
 */
export type AgentSource = ModelSource & { createAgent?(mode: Mode): Agent };

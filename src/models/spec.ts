/**
 * The one contract every model sits behind. Only src/models/<vendor>/ knows a vendor's wire format.
 * Tool calls keep the exact argument text the model emitted; malformed output is a model fault the
 * agent records and the suite scores, never a crash. Transport faults are thrown as ProviderError.
 */
import type { AssistantMessage, Message } from '../core/message.ts';
import type { ErrorCode } from '../core/errors.ts';
import type { Mode } from '../core/mode.ts';
import type { Task } from '../core/task.ts';
import type { ToolSpec } from '../core/tool.ts';
import type { Usage } from '../core/usage.ts';

export type GenerationSettings = {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  seed?: number;
  stop?: string[];
  /**
   * Send tools with the provider's strict argument decoding (OpenAI's `strict: true`, as FuncBenchGen
   * does); providers without it ignore it with a warning.
   */
  strictTools?: boolean;
};

export type ToolChoice = 'auto' | 'none' | 'required';

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other';

export type GenerateRequest = {
  messages: Message[];
  /** Native tools offered; empty for text protocols (react, sequence, code). */
  tools: ToolSpec[];
  toolChoice: ToolChoice;
  settings: GenerationSettings;
  signal: AbortSignal;
  /**
   * Ask for a plain text continuation of `messages`' last user content instead of a chat turn
   * (base models through a completions endpoint). Chat-only providers ignore it with a warning.
   */
  completion?: boolean;
};

export type ProviderWarning = { type: 'unsupported-setting' | 'other'; message: string };

export type GenerateResult = {
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: Usage;
  warnings: ProviderWarning[];
  /** The vendor request and response, for the record. */
  raw: { request: unknown; response: unknown };
};

export interface LanguageModel {
  readonly specificationVersion: 'v1';
  /** 'openai', 'anthropic', 'google', 'openai-compatible', 'replay', 'builtin'. */
  readonly provider: string;
  readonly modelId: string;
  generate(request: GenerateRequest): Promise<GenerateResult>;
}

/** One retried model request, as the retry layer (request-retry.ts) reports it. */
export type RequestRetry = {
  /** The error code of the failed attempt: 'provider.rate-limited', 'provider.timeout', ... */
  cause: ErrorCode;
  /** The attempt that failed, from 1. */
  failedAttempt: number;
  /** How long that attempt took before it failed. */
  failedAttemptMs: number;
  /** The wait before the next attempt (Retry-After when the provider said, else backoff). */
  delayMs: number;
  message: string;
};

/**
 * What the runner lends a network model for one episode: its clock and its retry tally. A model
 * request stops the episode clock while it is in flight and charges only the attempt that answered,
 * so a provider that hangs or fails never spends the model's time limit.
 */
export type EpisodeRequestHooks = {
  /** Stops the episode clock; call the returned function once to restart it, charging `chargedMs`. */
  pauseClock(): (chargedMs: number) => void;
  onRetry(retry: RequestRetry): void;
};

/** What one episode is about, for models that answer per task (replay, built-in agents). */
export type EpisodeContext = {
  task: Task;
  trial: number;
  mode: Mode;
  /** Absent outside the runner (a model used on its own has no episode clock). */
  requests?: EpisodeRequestHooks;
};

/**
 * A model as named on the command line (`openai/gpt-4.1`). Network models return one shared
 * LanguageModel; replay and built-in models return a fresh one per episode.
 */
export interface ModelSource {
  readonly ref: string;
  forEpisode(episode: EpisodeContext): LanguageModel;
  /**
   * For sources of stored outputs (replay): which planned episodes have no output, and which outputs name a task
   * that is not planned. The runner refuses to score missing outputs as failures unless told to.
   */
  coverage?(tasks: Iterable<PlannedTask>): OutputCoverage;
}

/** A planned task of a run and its number of trials (trials 0 .. trials - 1), as coverage reads them. */
export type PlannedTask = { task: Pick<Task, 'id' | 'suite'>; trials: number };

export type OutputCoverage = {
  /** Planned episodes with no stored output, as `taskId` (or `taskId#trial` when only some trials lack one). */
  missing: string[];
  /** Task ids of stored outputs that match no planned task. */
  unknownTaskIds: string[];
};

export type ModelReference = { provider: string; modelId: string; ref: string };

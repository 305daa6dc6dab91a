/**
 * The one contract every model sits behind. Only src/models/<vendor>/ knows a vendor's wire format.
 * Tool calls keep the exact argument text the model emitted; malformed output is a model fault the
 * agent records and the suite scores, never a crash. Transport faults are thrown as ProviderError.
 */
import type { AssistantMessage, Message } from '../core/message.ts';
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

/** What one episode is about, for models that answer per task (replay, built-in agents). */
export type EpisodeContext = { task: Task; trial: number; mode: Mode };

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
  coverage?(episodes: readonly { task: Task; trial: number }[]): OutputCoverage;
}

export type OutputCoverage = {
  /** Planned episodes with no stored output, as `taskId` (or `taskId#trial` when only some trials lack one). */
  missing: string[];
  /** Task ids of stored outputs that match no planned task. */
  unknownTaskIds: string[];
};

export type ModelReference = { provider: string; modelId: string; ref: string };

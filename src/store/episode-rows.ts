/**
 * How runs and episodes map to table rows, shared by the SQLite and PostgreSQL stores (same schema, same
 * columns): JSON columns as text, transcripts encoded (transcript-encoding.ts), model- and program-controlled
 * text capped when stored.
 */
import { capText, textCaps } from '../core/cap-text.ts';
import type { EpisodeRecord, EpisodeStatus } from '../core/episode.ts';
import type { AssistantMessage, Message } from '../core/message.ts';
import type { EpisodeOutcome } from './episode-query.ts';
import type { RunStatus, StoredRun } from './stored-run.ts';
import { decodeTranscript, encodeTranscript } from './transcript-encoding.ts';
import type { TranscriptEncodingOptions } from './transcript-encoding.ts';
import { parseStoredJson } from './stored-json.ts';

export type RunRow = {
  id: string; created_at: string; suite_id: string; suite_version: string; model: string; base_url: string | null;
  mode: string | null; trials: number; concurrency: number; seed: number; params: string; settings: string;
  provenance: string; status: string; task_count: number;
};

export type EpisodeRow = {
  run_id: string; task_id: string; trial: number; model: string; mode: string; status: string; termination: string | null;
  score: string | null; messages: string | Buffer; messages_encoding: string; input_tokens: number; output_tokens: number; attempts: number;
  started_at: string; ended_at: string; duration_ms: number; error: string | null; retries: string | null; trace: string | null;
  /** Leading transcript messages that are the task's prompt, not stored in `messages` (store schema 8; 0 before). */
  prompt_messages: number;
  /** The run's task JSON, selected with the row when `prompt_messages` > 0 (see transcript-encoding.ts). */
  prompt_task?: string | null;
};

/** The episode fields kept in the `trace` column (store schema 3). */
type EpisodeTrace = Pick<EpisodeRecord, 'finalState' | 'calls' | 'warnings' | 'raw'>;

export function runFromRow(row: RunRow): StoredRun {
  return {
    schemaVersion: 1,
    id: row.id,
    createdAt: row.created_at,
    suite: { id: row.suite_id, version: row.suite_version },
    model: row.model,
    baseUrl: row.base_url,
    mode: row.mode as StoredRun['mode'],
    trials: row.trials,
    concurrency: row.concurrency,
    seed: row.seed,
    params: parseStoredJson<StoredRun['params']>(row.params, 'params', { run_id: row.id }),
    settings: parseStoredJson<StoredRun['settings']>(row.settings, 'settings', { run_id: row.id }),
    provenance: parseStoredJson<StoredRun['provenance']>(row.provenance, 'provenance', { run_id: row.id }),
    status: row.status as RunStatus,
    taskCount: row.task_count,
  };
}

function transcriptColumns(episode: EpisodeRecord, taskPrompt: readonly Message[], options: TranscriptEncodingOptions): { messages: string | Buffer; messages_encoding: string; prompt_messages: number } {
  const encoded = encodeTranscript(episode.messages.map(capMessageText), taskPrompt, options);
  return { messages: encoded.data, messages_encoding: encoded.encoding, prompt_messages: encoded.promptMessages };
}

/** Every episode column but the transcript. */
export function outcomeColumns(alias: string): string {
  return ['run_id', 'task_id', 'trial', 'model', 'mode', 'status', 'termination', 'score', 'input_tokens', 'output_tokens',
    'attempts', 'started_at', 'ended_at', 'duration_ms', 'error', 'retries'].map((column) => `${alias}.${column}`).join(', ');
}

/** `taskPrompt`: the episode's task's prompt, when known, so the transcript does not store it again. */
export function episodeToRow(episode: EpisodeRecord, taskPrompt: readonly Message[] = [], options: TranscriptEncodingOptions = {}): Record<string, string | number | null | Buffer> {
  return {
    run_id: episode.runId,
    task_id: episode.taskId,
    trial: episode.trial,
    model: episode.model,
    mode: episode.mode,
    status: episode.status,
    termination: episode.termination,
    passed: episode.score ? (episode.score.passed ? 1 : 0) : null,
    value: episode.score ? episode.score.value : null,
    failure: episode.score?.failure ?? null,
    score: episode.score ? JSON.stringify({ ...episode.score, reason: capText(episode.score.reason, textCaps.message) }) : null,
    ...transcriptColumns(episode, taskPrompt, options),
    input_tokens: episode.usage.inputTokens,
    output_tokens: episode.usage.outputTokens,
    attempts: episode.attempts,
    started_at: episode.startedAt,
    ended_at: episode.endedAt,
    duration_ms: Math.round(episode.durationMs),
    error: episode.error ? JSON.stringify(episode.error) : null,
    retries: episode.retries && Object.keys(episode.retries).length > 0 ? JSON.stringify(episode.retries) : null,
    trace: JSON.stringify({
      finalState: episode.finalState, calls: episode.calls, warnings: episode.warnings, ...(episode.raw ? { raw: episode.raw } : {}),
    } satisfies EpisodeTrace),
  };
}

/**
 * Text a model or a program controls is capped when stored (src/core/cap-text.ts), so one huge output cannot
 * grow the results file: contents, reasoning, tool-call argument text, tool outputs and error messages.
 */
function capMessageText(message: Message): Message {
  const cap = (text: string): string => capText(text, textCaps.content);
  switch (message.role) {
    case 'system':
    case 'user':
      // Unchanged messages stay the same objects: the transcript encoder recognises the task's prompt by identity.
      return message.content.length > textCaps.content ? { ...message, content: cap(message.content) } : message;
    case 'assistant': {
      const capped: AssistantMessage = {
        ...message,
        content: cap(message.content),
        toolCalls: message.toolCalls.map((call) => (call.argumentsText.length > textCaps.content
          ? { ...call, argumentsText: cap(call.argumentsText), arguments: undefined }
          : call)),
      };
      if (message.reasoning !== undefined) capped.reasoning = cap(message.reasoning);
      return capped;
    }
    case 'tool': {
      const { result } = message;
      if (!result.ok) return { ...message, result: { ok: false, error: { ...result.error, message: cap(result.error.message) } } };
      const text = typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
      return text.length > textCaps.content ? { ...message, result: { ok: true, output: cap(text) } } : message;
    }
  }
}

export function episodeFromRow(row: EpisodeRow): EpisodeRecord {
  const { schemaVersion, ...outcome } = outcomeFromRow(row);
  return {
    schemaVersion, ...outcome,
    messages: decodeTranscript(row.messages_encoding, row.messages, Number(row.prompt_messages ?? 0), promptOf(row), `run '${row.run_id}' task '${row.task_id}' trial ${row.trial}`),
    // Episodes stored before schema 3 have no trace.
    ...(row.trace === null ? { finalState: null, calls: [], warnings: [] } : parseStoredJson<EpisodeTrace>(row.trace, 'trace', row)),
  };
}

export function outcomeFromRow(row: Omit<EpisodeRow, 'messages' | 'messages_encoding' | 'trace'>): EpisodeOutcome {
  return {
    schemaVersion: 1,
    runId: row.run_id,
    taskId: row.task_id,
    model: row.model,
    mode: row.mode as EpisodeRecord['mode'],
    trial: row.trial,
    status: row.status as EpisodeStatus,
    termination: row.termination as EpisodeRecord['termination'],
    score: row.score === null ? null : parseStoredJson<EpisodeRecord['score']>(row.score, 'score', row),
    usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens },
    attempts: row.attempts,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    durationMs: row.duration_ms,
    error: row.error === null ? null : parseStoredJson<EpisodeRecord['error']>(row.error, 'error', row),
    ...(row.retries ? { retries: parseStoredJson<Record<string, number>>(row.retries, 'retries', row) } : {}),
  };
}

/** The task prompt a row's transcript starts with (none when the row stores its whole transcript). */
function promptOf(row: EpisodeRow): readonly Message[] {
  if (!row.prompt_messages || typeof row.prompt_task !== 'string') return [];
  return parseStoredJson<{ prompt?: Message[] }>(row.prompt_task, 'task', row).prompt ?? [];
}

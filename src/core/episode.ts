import type { CallRecord } from './call-record.ts';
import type { JsonValue } from './json.ts';
import type { Message } from './message.ts';
import type { Mode } from './mode.ts';
import type { Score } from './score.ts';
import type { Termination } from './termination.ts';
import type { Usage } from './usage.ts';

/**
 * `scored`: judged. `infrastructure-error`: not the model's fault (provider outage after retries,
 * sandbox crash, our bug) — never scored, retried on resume. `cancelled`: the run was stopped.
 */
export type EpisodeStatus = 'scored' | 'infrastructure-error' | 'cancelled';

/** One (task, model, mode, trial) attempt, as stored. */
export type EpisodeRecord = {
  schemaVersion: 1;
  runId: string;
  taskId: string;
  model: string;
  mode: Mode;
  trial: number;
  status: EpisodeStatus;
  termination: Termination | null;
  messages: Message[];
  score: Score | null;
  usage: Usage;
  /** How many times it was attempted (infrastructure retries included). */
  attempts: number;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  error: { code: string; message: string } | null;
  /**
   * Retries by cause (an error code: 'provider.rate-limited', 'provider.timeout', 'sandbox.crashed'...):
   * the episode's retried model requests and its restarts, added up over its stored attempts (an
   * infrastructure error's retries stay counted after `--resume` scores it). Absent when there were none.
   */
  retries?: Record<string, number>;
  /** Environment.snapshotState() at the end (null when not scored, or stored before it was kept). */
  finalState: JsonValue | null;
  /** What the episode did, structured (empty for episodes stored before it was kept). */
  calls: CallRecord[];
  /** What the provider warned about (settings it ignored...), per model call, in order. */
  warnings: EpisodeWarning[];
  /** The vendor request and response of every model call; only with `--keep-raw`. */
  raw?: RawExchange[];
};

export type EpisodeWarning = { turn: number; type: string; message: string };
export type RawExchange = { turn: number; request: unknown; response: unknown };

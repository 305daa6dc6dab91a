import type { JsonObject, JsonValue } from './json.ts';
import type { CallRecord } from './call-record.ts';
import type { Environment } from './environment.ts';
import type { FailureCode } from './failure.ts';
import type { Message } from './message.ts';
import type { Task } from './task.ts';
import type { Termination } from './termination.ts';

/**
 * The judgement of one episode. `value` is in [0, 1]; `passed` is the task's success criterion. `TDetails` is the
 * suite's own details type (its `detailsSchema`); stored and generic code sees the JSON object form.
 */
export type Score<TDetails = ScoreDetails> = {
  value: number;
  passed: boolean;
  reason: string;
  /** The main reason it failed; absent when it passed. */
  failure?: FailureCode;
  /** Counts per failure code inside the episode (e.g. per tool call), when a suite classifies more than one. */
  failureCounts?: Partial<Record<FailureCode, number>>;
  /** Suite-specific numbers the suite's summary aggregates (kept in the store, so reports can be rebuilt). */
  details?: TDetails;
};

export type ScoreInput = {
  task: Task;
  messages: Message[];
  /** Environment.snapshotState() at the end of the episode. */
  finalState: JsonValue;
  termination: Termination;
  /** What the episode did, structured (tool calls, binding calls, program runs); see CallRecord. */
  calls: CallRecord[];
  /** Aborts when the run is cancelled; a scorer that replays or runs tests passes it on. */
  signal: AbortSignal;
  /**
   * A fresh environment from the same task (and the same transforms), e.g. to replay gold or run
   * test cases on clean state. The scorer must dispose() what it creates.
   */
  createEnvironment(): Promise<Environment>;
};

/**
 * A suite's per-episode details in the store: a JSON object. Each suite declares its exact shape (`detailsSchema`);
 * its details are checked against it when its scorer returns them and when they are read back for its summary.
 */
export type ScoreDetails = { readonly [key: string]: unknown };

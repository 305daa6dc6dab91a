/** Messages between the main thread (quickjs-sandbox.ts) and a sandbox worker (sandbox-worker.ts). */
import type { JsonValue } from '../core/json.ts';
import type { PreludeSettings } from './prelude.ts';
import type {
  ConsoleEntry, HttpOptions, HttpResponse, ProgramError, RecordedRequest, SandboxLimits, SandboxResult, SandboxTrace,
} from './spec.ts';

/** Something only the host (main thread) can do for the program. */
export type HostCall =
  | { kind: 'binding'; path: string[]; args: JsonValue[] }
  | { kind: 'http'; request: RecordedRequest };

export type HostReply = { ok: true; value: JsonValue | undefined } | { ok: false; error: ProgramError };

type WithoutTrace<Result> = Result extends unknown ? Omit<Result, keyof SandboxTrace> : never;
/** A result without the trace (requests and logs are streamed to the main thread as they happen). */
export type ProgramVerdict = WithoutTrace<SandboxResult>;

export type ProgramJob = {
  code: string;
  limits: SandboxLimits;
  /** The canned response, or null when the main thread answers each request. */
  cannedResponse: HttpResponse | null;
  excessCode: NonNullable<HttpOptions['excessCode']>;
  settings: PreludeSettings;
};

export type MainToWorker =
  | { type: 'run'; runId: number; job: ProgramJob }
  | { type: 'settle'; runId: number; callId: number; reply: HostReply };

/** Sent on the synchronous-call port, then signalled through the shared flag. */
export type SyncReply = { runId: number; callId: number; reply: HostReply };

export type WorkerToMain =
  | { type: 'ready' }
  | { type: 'request'; runId: number; request: RecordedRequest }
  | { type: 'log'; runId: number; entry: ConsoleEntry }
  | { type: 'host-call'; runId: number; callId: number; sync: boolean; call: HostCall }
  /** `retire`: the worker cannot run more programs; the main thread replaces it. */
  | { type: 'done'; runId: number; verdict: ProgramVerdict; retire: boolean }
  | { type: 'crashed'; runId: number | null; message: string };

/**
 * The QuickJS/WASM Sandbox: a pool of worker threads, each hosting one WASM module, running one program at a
 * time in a fresh QuickJS state (the module's memory restored to its image taken once the prelude was compiled;
 * see run-program.ts). The main thread answers host calls (bindings, HTTP responders), collects the streamed
 * trace, and holds the wall-clock backstop: a worker still busy at deadline + grace (a built-in that never
 * reaches an interrupt check) is terminated and replaced, and the program is reported as a timeout.
 */
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { startModuleWorker } from '../core/module-worker.ts';
import { z } from 'zod';
import { ConfigError, SandboxError, ToolForgeError, errorMessage } from '../core/errors.ts';
import { longestTimerMs } from '../core/limits.ts';
import type { JsonValue } from '../core/json.ts';
import { flattenBindings, type FlatBinding } from './bindings.ts';
import type { SandboxWorkerData } from './sandbox-worker.ts';
import {
  defaultHttpResponse, defaultSandboxLimits, maximumStackLimitBytes,
  type ConsoleEntry, type HttpResponder, type HttpResponse, type RecordedRequest, type RunOptions, type Sandbox,
  type SandboxLimits, type SandboxOptions, type SandboxProgram, type SandboxResult,
} from './spec.ts';
import type { HostCall, HostReply, MainToWorker, ProgramJob, ProgramVerdict, SyncReply, WorkerToMain } from './worker-protocol.ts';
import { formatFieldPath } from '../core/field-path.ts';

const defaultVirtualEpochMs = Date.UTC(2024, 0, 1);
const defaultBackstopGraceMs = 500;
/**
 * V8 stack of a sandbox worker. QuickJS checks its stack limit against the WASM shadow stack, but its recursion
 * also uses the host stack (WASM frames); the default 4 MB overflows first on deeply nested source or data
 * (measured: 3000 nested brackets), so the worker gets room for QuickJS's own check to fire first.
 */
const workerStackMegabytes = 32;
/**
 * WASM memory a worker's module may grow to: the module's own start (16 MB), the default program limit twice
 * over (QuickJS's accounting and the buffers it misses) and slack, at least 96 MB. A program whose own limit
 * is larger gets 'memory-limit' at this ceiling instead.
 */
function workerWasmMemoryBytes(limits: SandboxLimits): number {
  return Math.max(96 * 1024 * 1024, 32 * 1024 * 1024 + 2 * limits.memoryLimitBytes);
}

const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() => z.union([
  z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValueSchema), z.record(z.string(), jsonValueSchema),
]));

const httpResponseSchema = z.object({
  status: z.number().int().min(100).max(599),
  headers: z.record(z.string(), z.string()).optional(),
  data: jsonValueSchema.optional(),
});

const limitsSchema = z.object({
  timeLimitMs: z.number().int().positive().max(longestTimerMs).optional(),
  memoryLimitBytes: z.number().int().min(1024 * 1024).optional(),
  stackLimitBytes: z.number().int().min(16 * 1024).max(maximumStackLimitBytes).optional(),
});

const programSchema = z.object({
  code: z.string(),
  limits: limitsSchema.optional(),
  http: z.object({
    respond: z.union([httpResponseSchema, z.custom<HttpResponder>((value) => typeof value === 'function')]).optional(),
    excessCode: z.enum(['run-all', 'stop-after-first-request']).optional(),
  }).optional(),
  bindings: z.record(z.string(), z.unknown()).optional(),
  seed: z.number().int().optional(),
  virtualEpochMs: z.number().finite().optional(),
});

const optionsSchema = z.object({
  poolSize: z.number().int().min(1).max(64).optional(),
  defaultLimits: limitsSchema.optional(),
  backstopGraceMs: z.number().int().min(0).optional(),
});

function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = formatFieldPath(issue.path, what);
  throw new ConfigError('config.invalid', `${field}: ${issue.message}`, {
    fix: `correct ${field} (limits: stackLimitBytes <= ${maximumStackLimitBytes}, memoryLimitBytes >= 1 MiB, positive integers)`,
  });
}

type ActiveRun = {
  runId: number;
  job: ProgramJob;
  bindings: Map<string, FlatBinding>;
  responder: HttpResponder | undefined;
  requests: RecordedRequest[];
  logs: ConsoleEntry[];
  startedAt: number;
  settled: boolean;
  resolve: (result: SandboxResult) => void;
  reject: (error: unknown) => void;
  backstop: NodeJS.Timeout | undefined;
  detachAbort: () => void;
};

type Slot = {
  worker: Worker;
  ready: boolean;
  retired: boolean;
  run: ActiveRun | undefined;
  syncPort: MessagePort;
  syncFlag: Int32Array;
};

export class QuickJsSandbox implements Sandbox {
  readonly #poolSize: number;
  readonly #defaultLimits: SandboxLimits;
  readonly #backstopGraceMs: number;
  readonly #slots = new Set<Slot>();
  readonly #waiting: ActiveRun[] = [];
  #runSequence = 0;
  #disposed = false;

  constructor(options: SandboxOptions = {}) {
    const parsed = parseOrThrow(optionsSchema, options, 'sandboxOptions');
    this.#poolSize = parsed.poolSize ?? 2;
    this.#defaultLimits = { ...defaultSandboxLimits, ...stripUndefined(parsed.defaultLimits ?? {}) };
    this.#backstopGraceMs = parsed.backstopGraceMs ?? defaultBackstopGraceMs;
  }

  run(program: SandboxProgram, options: RunOptions = {}): Promise<SandboxResult> {
    // Every failure, bad input included, arrives as a rejection.
    try {
      return this.#enqueue(program, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #enqueue(program: SandboxProgram, options: RunOptions): Promise<SandboxResult> {
    if (this.#disposed) return Promise.reject(new SandboxError('sandbox.crashed', 'the sandbox was disposed', { fix: 'create a new sandbox with createSandbox()' }));
    const parsed = parseOrThrow(programSchema, program, 'program');
    const bindings = flattenBindings(program.bindings ?? {});
    const limits: SandboxLimits = { ...this.#defaultLimits, ...stripUndefined(parsed.limits ?? {}) };
    const respond = program.http?.respond ?? defaultHttpResponse;
    const job: ProgramJob = {
      code: program.code,
      limits,
      cannedResponse: typeof respond === 'function' ? null : respond,
      excessCode: program.http?.excessCode ?? 'run-all',
      settings: {
        seed: program.seed ?? 0,
        virtualEpochMs: program.virtualEpochMs ?? defaultVirtualEpochMs,
        memoryLimitBytes: limits.memoryLimitBytes,
        bindings: [...bindings.values()].map(({ path, returns }) => ({ path, returns })),
      },
    };
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<SandboxResult>((resolve, reject) => {
      const run: ActiveRun = {
        runId: ++this.#runSequence,
        job,
        bindings: new Map([...bindings].map(([key, binding]) => [key, binding])),
        responder: typeof respond === 'function' ? respond : undefined,
        requests: [],
        logs: [],
        startedAt: 0,
        settled: false,
        resolve,
        reject,
        backstop: undefined,
        detachAbort: () => {},
      };
      if (signal) {
        const onAbort = (): void => this.#abort(run, signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        run.detachAbort = () => signal.removeEventListener('abort', onAbort);
      }
      this.#waiting.push(run);
      this.#pump();
    });
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    const disposedError = new SandboxError('sandbox.crashed', 'the sandbox was disposed while the program was running', {
      fix: 'await every run() before dispose()',
    });
    for (const run of this.#waiting.splice(0)) this.#settle(run, { error: disposedError });
    const terminations: Promise<number>[] = [];
    for (const slot of this.#slots) {
      if (slot.run) this.#settle(slot.run, { error: disposedError });
      terminations.push(this.#retire(slot));
    }
    await Promise.all(terminations);
  }

  // ---- pool ----

  #pump(): void {
    if (this.#disposed) return;
    while (this.#waiting.length > 0) {
      const idle = [...this.#slots].find((slot) => slot.ready && !slot.retired && !slot.run);
      if (!idle) break;
      this.#dispatch(idle, this.#waiting.shift() as ActiveRun);
    }
    const live = [...this.#slots].filter((slot) => !slot.retired);
    const starting = live.filter((slot) => !slot.ready).length;
    const wanted = Math.min(this.#poolSize - live.length, this.#waiting.length - starting);
    for (let index = 0; index < wanted; index += 1) this.#spawn();
  }

  #spawn(): void {
    const { port1, port2 } = new MessageChannel();
    const sharedFlag = new SharedArrayBuffer(4);
    const workerData: SandboxWorkerData = { syncPort: port2, syncFlag: sharedFlag, wasmMemoryBytes: workerWasmMemoryBytes(this.#defaultLimits) };
    const worker = startWorker(workerData, port2);
    port1.unref();
    const slot: Slot = { worker, ready: false, retired: false, run: undefined, syncPort: port1, syncFlag: new Int32Array(sharedFlag) };
    this.#slots.add(slot);
    worker.on('message', (message: WorkerToMain) => this.#onMessage(slot, message));
    worker.on('error', (error) => this.#onWorkerLost(slot, `sandbox worker failed: ${errorMessage(error)}`));
    worker.on('exit', (code) => this.#onWorkerLost(slot, `sandbox worker exited with code ${code}`));
  }

  #retire(slot: Slot): Promise<number> {
    slot.retired = true;
    this.#slots.delete(slot);
    slot.syncPort.close();
    return slot.worker.terminate();
  }

  #onWorkerLost(slot: Slot, message: string): void {
    if (slot.retired) return;
    const run = slot.run;
    void this.#retire(slot);
    if (run) this.#settle(run, { error: new SandboxError('sandbox.crashed', message, { fix: 'retry the episode; report a bug if it repeats' }) });
    if (!slot.ready) {
      // A worker that cannot even start would be respawned forever: fail the waiting programs instead.
      const error = new SandboxError('sandbox.crashed', `the sandbox worker could not start: ${message}`, {
        fix: 'check that quickjs-emscripten-core, @jitl/quickjs-wasmfile-release-sync and tsx are installed (npm ci)',
      });
      for (const waiting of this.#waiting.splice(0)) this.#settle(waiting, { error });
      return;
    }
    this.#pump();
  }

  #dispatch(slot: Slot, run: ActiveRun): void {
    slot.run = run;
    slot.worker.ref();
    run.startedAt = performance.now();
    run.backstop = setTimeout(() => this.#onBackstop(slot, run), Math.min(longestTimerMs, run.job.limits.timeLimitMs + this.#backstopGraceMs));
    const message: MainToWorker = { type: 'run', runId: run.runId, job: run.job };
    slot.worker.postMessage(message);
  }

  #onBackstop(slot: Slot, run: ActiveRun): void {
    if (slot.run !== run || run.settled) return;
    void this.#retire(slot);
    this.#settle(run, { verdict: { status: 'timeout' } });
    this.#pump();
  }

  #abort(run: ActiveRun, reason: unknown): void {
    if (run.settled) return;
    const waitingIndex = this.#waiting.indexOf(run);
    if (waitingIndex >= 0) this.#waiting.splice(waitingIndex, 1);
    const slot = [...this.#slots].find((candidate) => candidate.run === run);
    if (slot) void this.#retire(slot);
    this.#settle(run, { error: reason });
    this.#pump();
  }

  /** Ends a run exactly once: with a verdict (plus its trace) or with a thrown error. */
  #settle(run: ActiveRun, outcome: { verdict: ProgramVerdict } | { error: unknown }): void {
    if (run.settled) return;
    run.settled = true;
    clearTimeout(run.backstop);
    run.detachAbort();
    for (const slot of this.#slots) {
      if (slot.run === run) {
        slot.run = undefined;
        slot.worker.unref();
      }
    }
    if ('error' in outcome) {
      run.reject(outcome.error);
      return;
    }
    const durationMs = run.startedAt ? performance.now() - run.startedAt : 0;
    run.resolve({ ...outcome.verdict, requests: run.requests, logs: run.logs, durationMs } as SandboxResult);
  }

  // ---- messages from a worker ----

  #onMessage(slot: Slot, message: WorkerToMain): void {
    if (slot.retired) return;
    if (message.type === 'ready') {
      slot.ready = true;
      slot.worker.unref();
      this.#pump();
      return;
    }
    const run = slot.run;
    if (message.type === 'crashed') {
      this.#onWorkerLost(slot, `sandbox worker crashed: ${message.message}`);
      return;
    }
    if (!run || run.runId !== message.runId) return;
    switch (message.type) {
      case 'request':
        run.requests.push(message.request);
        return;
      case 'log':
        run.logs.push(message.entry);
        return;
      case 'host-call':
        void this.#answer(slot, run, message.callId, message.sync, message.call);
        return;
      case 'done':
        if (message.retire) void this.#retire(slot);
        this.#settle(run, { verdict: message.verdict });
        this.#pump();
        return;
    }
  }

  async #answer(slot: Slot, run: ActiveRun, callId: number, sync: boolean, call: HostCall): Promise<void> {
    let reply: HostReply;
    try {
      reply = { ok: true, value: await this.#invoke(run, call) };
    } catch (error) {
      if (error instanceof ToolForgeError) {
        // Infrastructure (or our caller's bug): never a program verdict.
        if (slot.run === run) void this.#retire(slot);
        this.#settle(run, { error });
        this.#pump();
        return;
      }
      reply = { ok: false, error: describeHostError(error) };
    }
    if (slot.run !== run || slot.retired) return;
    if (sync) {
      const message: SyncReply = { runId: run.runId, callId, reply };
      slot.syncPort.postMessage(message);
      Atomics.store(slot.syncFlag, 0, 1);
      Atomics.notify(slot.syncFlag, 0);
    } else {
      const message: MainToWorker = { type: 'settle', runId: run.runId, callId, reply };
      slot.worker.postMessage(message);
    }
  }

  async #invoke(run: ActiveRun, call: HostCall): Promise<JsonValue | undefined> {
    if (call.kind === 'http') {
      if (!run.responder) throw new SandboxError('internal', 'a request asked the host for a response, but the program has no responder');
      const response = await run.responder(call.request);
      return parseOrThrowResponse(response) as unknown as JsonValue;
    }
    const binding = run.bindings.get(call.path.join('.'));
    if (!binding) throw new SandboxError('internal', `unknown binding ${call.path.join('.')}`);
    const result = await binding.call(...call.args);
    return asJson(result, call.path.join('.'));
  }
}

function parseOrThrowResponse(response: unknown): HttpResponse {
  const parsed = httpResponseSchema.safeParse(response);
  if (parsed.success) return parsed.data;
  throw new SandboxError('internal', `the HTTP responder returned an invalid response: ${formatFieldPath(parsed.error.issues[0].path) || '(response)'}: ${parsed.error.issues[0].message}`, {
    fix: 'return { status: <100-599>, headers?: Record<string, string>, data?: <JSON> } from http.respond',
  });
}

function asJson(value: unknown, name: string): JsonValue | undefined {
  if (value === undefined) return undefined;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new SandboxError('internal', `binding ${name} returned a value that is not JSON: ${errorMessage(error)}`, {
      fix: 'return plain JSON data (objects, arrays, strings, numbers, booleans, null) from bindings',
    });
  }
}

function describeHostError(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

function startWorker(workerData: SandboxWorkerData, port: MessagePort): Worker {
  return startModuleWorker(import.meta.url, './sandbox-worker', { workerData, transferList: [port], resourceLimits: { stackSizeMb: workerStackMegabytes } });
}

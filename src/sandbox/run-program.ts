/**
 * Runs one program in a fresh QuickJS state (inside a sandbox worker). A worker's module is prepared once: a
 * runtime and context with the prelude compiled, and the image of the module's memory at that point. Each
 * program starts from that image, restored byte for byte, so it sees exactly what a new runtime would give it and
 * nothing an earlier program left, without compiling the 57 KB prelude again (about 13 ms of WASM per program,
 * most of a small program's cost). The runtime gets the program's memory and stack limits and an interrupt handler
 * for its deadline; the host side of the prelude's `host(op, json)` function records requests and logs and forwards
 * host calls through the bridge. A program's handles are never disposed: the next restore discards them whole.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { z } from 'zod';
import { capText, textCaps } from '../core/cap-text.ts';
import { errorMessage } from '../core/errors.ts';
import type { JsonValue } from '../core/json.ts';
import { jsonTextDepth, nestsDeeperThan } from './nesting-depth.ts';
import { preludeSource } from './prelude.ts';
import { wrapProgram } from './program-source.ts';
import { recordRequest, type WireRequest } from './request-record.ts';
import { maximumNestingDepth, traceCaps, type ConsoleEntry, type ProgramError, type RecordedRequest } from './spec.ts';
import { capJsonStrings, capProgramError, capRequest, requestCharacters } from './trace-caps.ts';
import type { HostCall, HostReply, ProgramJob, ProgramVerdict } from './worker-protocol.ts';

export type HostBridge = {
  log(entry: ConsoleEntry): void;
  record(request: RecordedRequest): void;
  /** Starts a host call answered later through `nextSettlement`. */
  startCall(callId: number, call: HostCall): void;
  /** A host call the program waits for synchronously; 'timeout' when the deadline passed first. */
  callSync(callId: number, call: HostCall, deadline: number): HostReply | 'timeout';
  nextSettlement(deadline: number): Promise<{ callId: number; reply: HostReply } | 'timeout'>;
};

/** `nesting`: the program handed the host data nested deeper than `maximumNestingDepth`. */
type InterruptReason = 'deadline' | 'stop' | 'memory' | 'nesting';

/** Levels a host-call payload wraps around the program's data (`{ body: { value: ... } }`, `{ args: [...] }`). */
const payloadEnvelopeDepth = 3;

/** Time to describe the outcome (error getters, toJSON) after the program ended. */
const readingBudgetMs = 250;

const programErrorSchema = z.object({ name: z.string(), message: z.string(), stack: z.string().optional() });
const consoleEntrySchema = z.object({ level: z.enum(['log', 'info', 'warn', 'error', 'debug']), text: z.string() });
const bindingCallSchema = z.object({ path: z.array(z.string()), args: z.array(z.unknown()), sync: z.boolean() });
const wireRequestSchema = z.object({
  client: z.enum(['axios', 'fetch']),
  method: z.string(),
  url: z.string(),
  headers: z.record(z.string(), z.string()),
  params: z.record(z.string(), z.unknown()),
  body: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('none') }),
    z.object({ kind: z.literal('string'), text: z.string() }),
    z.object({ kind: z.literal('form-data'), entries: z.array(z.tuple([z.string(), z.string()])) }),
    z.object({ kind: z.literal('value'), value: z.unknown() }),
  ]),
});

/** Thrown for a payload the program tampered with (e.g. Object.prototype.toJSON): the program sees a TypeError. */
class TamperedPayloadError extends Error {}

function parsePayload<T>(schema: z.ZodType<T>, payload: unknown, op: string): T {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) throw new TamperedPayloadError(`the sandbox could not read the ${op} call (were built-ins modified?)`);
  return parsed.data;
}

/** Heap room beyond the program's limit before the guard interrupts it (the prelude and GC slack). */
const heapSlackBytes = 16 * 1024 * 1024;

/**
 * Bytes of the module's WASM memory. QuickJS's memory limit misses large string and typed-array buffers, so
 * the interrupt handler also watches the heap itself. The emscripten module is not public API: 0 disables it.
 */
export function wasmHeapBytes(module: QuickJSWASMModule): number {
  const internal = (module as unknown as { module?: { HEAPU8?: Uint8Array } }).module;
  return internal?.HEAPU8?.byteLength ?? 0;
}

type HostImplementation = Parameters<QuickJSContext['newFunction']>[1];

/** A module made ready to run programs from one memory image (see the top of this file). */
export type PreparedModule = {
  readonly module: QuickJSWASMModule;
  readonly runtime: QuickJSRuntime;
  readonly vm: QuickJSContext;
  /** The compiled prelude: `(host, settingsJson) => controls`. */
  readonly installer: QuickJSHandle;
  readonly hostFunction: QuickJSHandle;
  /** What the running program's interrupt handler and host function do; set by runProgram. */
  interrupt: () => boolean;
  host: HostImplementation;
  /** Puts the module's memory back to the image: the state right after preparing. */
  restore(): void;
};

/**
 * Prepares a fresh module. Its memory must be `memory` (the module's own, passed to newVariant). The handles the
 * library creates lazily and caches on the context (the global object, Symbol, BigInt) are made here, so they are
 * part of the image: made later, a restore would leave the cache pointing at memory that no longer holds them.
 */
export function prepareModule(module: QuickJSWASMModule, memory: WebAssembly.Memory): PreparedModule {
  const runtime = module.newRuntime();
  const vm = runtime.newContext();
  void vm.global;
  vm.newBigInt(0n).dispose();
  vm.getWellKnownSymbol('iterator').dispose();
  const hostFunction = vm.newFunction('host', function (this: QuickJSHandle, opHandle, payloadHandle) {
    return prepared.host.call(this, opHandle, payloadHandle);
  });
  const installer = unwrapInfrastructure(vm, vm.evalCode(preludeSource(), 'sandbox-prelude.js', { strip: true }));
  runtime.setInterruptHandler(() => prepared.interrupt());
  const image = memoryImage(memory);
  const prepared: PreparedModule = {
    module, runtime, vm, installer, hostFunction,
    interrupt: () => false,
    host: () => vm.undefined,
    restore() {
      const heap = new Uint8Array(memory.buffer);
      // Chunks of zeros in the image (most of the C stack) are written only where a program left bytes in them.
      image.chunks.forEach((chunk, index) => {
        const start = index * imageChunkBytes;
        if (chunk !== undefined) heap.set(chunk, start);
        else if (!isZero(heap, start, start + imageChunkBytes)) heap.fill(0, start, start + imageChunkBytes);
      });
      heap.fill(0, image.end, lastWrittenEnd(heap, image.end));
    },
  };
  return prepared;
}

/** The unit of a memory image and of the checks for zeros (a WASM page). */
const imageChunkBytes = 64 * 1024;
/** A chunk of zeros to compare memory against (a native compare, not a loop over words). */
const zeroChunk = Buffer.alloc(imageChunkBytes);

/** Whether heap[start, end) is all zeros (at most one chunk long). */
function isZero(heap: Uint8Array, start: number, end: number): boolean {
  return Buffer.from(heap.buffer, heap.byteOffset + start, end - start).equals(zeroChunk.subarray(0, end - start));
}

/**
 * The end of the last 64 KB chunk after `from` that holds a non-zero byte (`from` when none does). Only that far is
 * zeroed: filling the pages no program wrote would make them resident, ~10 MB per module of a fresh one's initial
 * memory alone, while reading them costs nothing (they map the kernel's zero page).
 */
function lastWrittenEnd(heap: Uint8Array, from: number): number {
  let end = heap.length;
  while (end > from) {
    const start = Math.max(from, end - imageChunkBytes);
    if (!isZero(heap, start, end)) return end;
    end = start;
  }
  return from;
}

/**
 * The memory up to its last non-zero chunk (the rest is zero, as a fresh module's is), as copies of its non-zero
 * chunks only: most of the ~6 MB is the C stack's reserve, zeros a copy and a restore's writes would make resident.
 */
type MemoryImage = { chunks: (Uint8Array | undefined)[]; end: number };

function memoryImage(memory: WebAssembly.Memory): MemoryImage {
  const heap = new Uint8Array(memory.buffer);
  const end = lastWrittenEnd(heap, 0);
  const chunks: (Uint8Array | undefined)[] = [];
  for (let start = 0; start < end; start += imageChunkBytes) {
    chunks.push(isZero(heap, start, start + imageChunkBytes) ? undefined : heap.slice(start, start + imageChunkBytes));
  }
  return { chunks, end };
}

/**
 * `moduleSpent`: the module must not run another program. A program stopped by a limit (an interrupt or a
 * failed allocation can land inside QuickJS's promise or GC machinery) may leave QuickJS's state half-changed.
 * A restore discards it, but such a module is still dropped whole (the worker makes a fresh one): a limit stop
 * is rare, and a fresh module is the state the sandbox's hostile tests were first proven on. The verdict was
 * decided before and stands.
 */
export type ProgramRun = { verdict: ProgramVerdict; moduleSpent: boolean };

export async function runProgram(prepared: PreparedModule, job: ProgramJob, bridge: HostBridge): Promise<ProgramRun> {
  const { module, runtime, vm } = prepared;
  prepared.restore();
  /** Starts once the prelude is installed: installing it is the sandbox's time, not the program's. */
  let deadline = Number.POSITIVE_INFINITY;
  const heapCeiling = wasmHeapBytes(module) + job.limits.memoryLimitBytes + heapSlackBytes;
  let interruptReason: InterruptReason | undefined;
  let stopRequested = false;
  /**
   * Set once the program is over and the host reads its outcome: reading may run program code (getters, toJSON),
   * so it gets its own short deadline instead of the program's.
   */
  let readingDeadline: number | undefined;
  let hostFailure: unknown;
  const startReading = (): void => {
    readingDeadline = Date.now() + readingBudgetMs;
  };
  let requestCount = 0;
  let requestCharactersUsed = 0;
  let logEntries = 0;
  let logCharacters = 0;
  let callSequence = 0;
  let pendingCalls = 0;

  runtime.setMemoryLimit(job.limits.memoryLimitBytes);
  runtime.setMaxStackSize(job.limits.stackLimitBytes);
  prepared.interrupt = () => {
    if (readingDeadline !== undefined) return Date.now() > readingDeadline;
    if (stopRequested) interruptReason ??= 'stop';
    else if (Date.now() > deadline) interruptReason ??= 'deadline';
    else if (wasmHeapBytes(module) > heapCeiling) interruptReason ??= 'memory';
    return interruptReason !== undefined;
  };

  const log = (entry: ConsoleEntry): void => {
    if (logEntries >= traceCaps.logEntries || logCharacters >= traceCaps.logCharacters) return;
    logEntries += 1;
    const text = capText(entry.text, textCaps.message);
    logCharacters += text.length;
    bridge.log({ level: entry.level, text });
    if (logEntries === traceCaps.logEntries || logCharacters >= traceCaps.logCharacters) {
      bridge.log({ level: 'warn', text: '[sandbox] further console output dropped' });
    }
  };

  /** Ends the program as a stack overflow: its data nests deeper than the host reads. */
  const stopForNesting = (): unknown => {
    interruptReason ??= 'nesting';
    return { kind: 'stop' };
  };

  const handleHostOp = (op: string, payloadText: string): unknown => {
    if (op === 'limit' || jsonTextDepth(payloadText) > maximumNestingDepth + payloadEnvelopeDepth) return stopForNesting();
    let payload: unknown;
    try {
      payload = JSON.parse(payloadText);
    } catch {
      throw new TamperedPayloadError(`the sandbox could not read the ${op} call (were built-ins modified?)`);
    }
    if (op === 'log') {
      log(parsePayload(consoleEntrySchema, payload, op));
      return null;
    }
    if (op === 'request') {
      if (requestCount >= traceCaps.requests) {
        return { kind: 'error', error: { name: 'Error', message: `request limit reached (${traceCaps.requests})` } };
      }
      const decoded = recordRequest(parsePayload(wireRequestSchema, payload, op) as WireRequest);
      // A string body decodes to data as deep as its text (JSON, or form keys like a[b][c]...).
      if (nestsDeeperThan(decoded, maximumNestingDepth + 1)) return stopForNesting();
      const request = capRequest(decoded);
      const characters = requestCharacters(request);
      if (requestCharactersUsed + characters > traceCaps.requestCharacters) {
        return { kind: 'error', error: { name: 'Error', message: `request size limit reached (${traceCaps.requestCharacters} characters in all)` } };
      }
      requestCount += 1;
      requestCharactersUsed += characters;
      bridge.record(request);
      if (job.excessCode === 'stop-after-first-request') {
        stopRequested = true;
        return { kind: 'stop' };
      }
      if (job.cannedResponse) return { kind: 'response', response: job.cannedResponse };
      callSequence += 1;
      pendingCalls += 1;
      bridge.startCall(callSequence, { kind: 'http', request });
      return { kind: 'pending', callId: callSequence };
    }
    if (op === 'binding') {
      const { path, args, sync } = parsePayload(bindingCallSchema, payload, op) as { path: string[]; args: JsonValue[]; sync: boolean };
      const known = job.settings.bindings.find((binding) => binding.path.join('.') === path.join('.'));
      if (!known || (known.returns === 'value') !== sync) throw new TamperedPayloadError(`no binding ${path.join('.')}`);
      callSequence += 1;
      if (sync) {
        const reply = bridge.callSync(callSequence, { kind: 'binding', path, args }, deadline);
        if (reply === 'timeout') {
          interruptReason ??= 'deadline';
          return { kind: 'stop' };
        }
        return reply.ok ? { kind: 'value', value: reply.value ?? null } : { kind: 'error', error: reply.error };
      }
      pendingCalls += 1;
      bridge.startCall(callSequence, { kind: 'binding', path, args });
      return { kind: 'pending', callId: callSequence };
    }
    throw new Error(`unknown host operation ${op}`);
  };

  let verdict: ProgramVerdict | undefined;
  let failure: unknown;
  try {
    verdict = await drive();
  } catch (error) {
    failure = error;
  }
  if (hostFailure !== undefined) {
    failure = hostFailure;
    verdict = undefined;
  }
  prepared.interrupt = () => false;
  prepared.host = () => vm.undefined;
  if (!verdict) throw failure;
  return { verdict, moduleSpent: stoppedByLimit(verdict, interruptReason) };

  async function drive(): Promise<ProgramVerdict> {
    prepared.host = (opHandle, payloadHandle) => {
      let result: unknown;
      try {
        result = handleHostOp(vm.getString(opHandle), vm.getString(payloadHandle));
      } catch (error) {
        // Our own failure is infrastructure: remembered and rethrown once the program is stopped.
        if (!(error instanceof TamperedPayloadError)) {
          hostFailure ??= error;
          stopRequested = true;
        }
        return { error: vm.newError({ name: 'TypeError', message: errorMessage(error) }) };
      }
      return vm.newString(JSON.stringify(result));
    };
    const settingsHandle = vm.newString(JSON.stringify(job.settings));
    const controls = unwrapInfrastructure(vm, vm.callFunction(prepared.installer, vm.undefined, prepared.hostFunction, settingsHandle));
    const control = (name: string): QuickJSHandle => vm.getProp(controls, name);
    const settle = control('settle');
    const fireTimer = control('fireTimer');
    const takeTimerError = control('takeTimerError');
    const toJson = control('toJson');
    const describe = control('describe');
    deadline = Date.now() + job.limits.timeLimitMs;

    /** Calls a control that returns a string; an exception there means the program was interrupted. */
    const callControl = (fn: QuickJSHandle, ...args: QuickJSHandle[]): string | undefined => {
      const result = vm.callFunction(fn, vm.undefined, ...args);
      if (result.error) {
        result.error.dispose();
        return undefined;
      }
      const value = vm.typeof(result.value) === 'string' ? vm.getString(result.value) : String(vm.dump(result.value));
      result.value.dispose();
      return value;
    };
    const describeHandle = (error: QuickJSHandle): ProgramError => describeText(callControl(describe, error));

    const compiled = vm.evalCode(wrapProgram(job.code), 'program.js');
    if (compiled.error) {
      startReading();
      const error = describeHandle(compiled.error);
      compiled.error.dispose();
      return classify(error, interruptReason);
    }
    const programFunction = compiled.value;
    const started = vm.callFunction(programFunction, vm.undefined);
    if (started.error) {
      startReading();
      runtime.setMemoryLimit(-1);
      const error = describeHandle(started.error);
      started.error.dispose();
      return classify(error, interruptReason);
    }
    const mainPromise = started.value;

    let settled: { ok: true; value: QuickJSHandle } | { ok: false; error: QuickJSHandle } | undefined;
    let timerError: ProgramError | undefined;
    let escapedError: QuickJSHandle | undefined;
    for (;;) {
      if (interruptReason === undefined && Date.now() > deadline) interruptReason = 'deadline';
      if (interruptReason === undefined && wasmHeapBytes(module) > heapCeiling) interruptReason = 'memory';
      if (interruptReason) break;
      const jobs = runtime.executePendingJobs(-1);
      if (jobs.error) {
        if (escapedError) jobs.error.dispose();
        else escapedError = jobs.error;
      }
      if (interruptReason) break;
      if (!settled) {
        const state = vm.getPromiseState(mainPromise);
        if (state.type === 'fulfilled') settled = { ok: true, value: state.value };
        else if (state.type === 'rejected') settled = { ok: false, error: state.error };
      }
      const timerErrorText = callControl(takeTimerError);
      if (timerErrorText) {
        timerError = describeText(timerErrorText);
        break;
      }
      if (runtime.hasPendingJob()) continue;
      if (pendingCalls > 0) {
        const settlement = await bridge.nextSettlement(deadline);
        if (settlement === 'timeout') {
          interruptReason ??= 'deadline';
          break;
        }
        pendingCalls -= 1;
        const callId = vm.newNumber(settlement.callId);
        const reply = vm.newString(JSON.stringify(settlement.reply));
        callControl(settle, callId, reply);
        callId.dispose();
        reply.dispose();
        continue;
      }
      if (callControl(fireTimer) === 'true') continue;
      break;
    }

    // Reading the outcome allocates: give it room even when the program used all its memory.
    startReading();
    runtime.setMemoryLimit(-1);
    if (interruptReason === 'stop') return { status: 'completed', value: undefined, stoppedAfterFirstRequest: true };
    if (interruptReason === 'memory') return { status: 'memory-limit' };
    if (interruptReason === 'nesting') return { status: 'stack-overflow' };
    if (timerError) return classify(timerError, undefined);
    if (settled?.ok) {
      const text = callControl(toJson, settled.value);
      // Interrupted while it was read (a getter or toJSON that never returns): the value is not there to read.
      if (text === undefined) return { status: 'completed', value: undefined, stoppedAfterFirstRequest: false, valueError: 'reading it as JSON did not finish in time (a getter or toJSON that does not return)' };
      if (text.startsWith('e')) {
        const why = describeText(text.slice(1));
        return { status: 'completed', value: undefined, stoppedAfterFirstRequest: false, valueError: `it cannot be turned into JSON (${why.name}: ${why.message})` };
      }
      if (text === 'n' || jsonTextDepth(text) > maximumNestingDepth) return { status: 'stack-overflow' };
      const value = text.startsWith('v') ? capJsonStrings(JSON.parse(text.slice(1)) as JsonValue).value : undefined;
      return { status: 'completed', value, stoppedAfterFirstRequest: false };
    }
    if (settled) return classify(describeHandle(settled.error), undefined);
    if (interruptReason === 'deadline') return { status: 'timeout' };
    if (escapedError) return classify(describeHandle(escapedError), undefined);
    return { status: 'unsettled' };
  }
}

/** A limit stopped the program mid-flight (not the clean stop after a first request). */
function stoppedByLimit(verdict: ProgramVerdict, interruptReason: InterruptReason | undefined): boolean {
  if (interruptReason !== undefined && interruptReason !== 'stop') return true;
  return verdict.status === 'timeout' || verdict.status === 'memory-limit' || verdict.status === 'stack-overflow';
}

/** An error description from the prelude (a flat JSON record of strings), capped; anything else is undescribable. */
function describeText(text: string | undefined): ProgramError {
  let parsed: ReturnType<typeof programErrorSchema.safeParse> | undefined;
  try {
    parsed = text && jsonTextDepth(text) <= 1 ? programErrorSchema.safeParse(JSON.parse(text)) : undefined;
  } catch {
    parsed = undefined;
  }
  return parsed?.success ? capProgramError(parsed.data) : { name: 'Error', message: 'Uncaught exception (not describable)' };
}

/**
 * Limits surface as QuickJS InternalErrors (the parser reports source nested too deeply as a SyntaxError
 * 'stack overflow'); anything else is the program's own error.
 */
function classify(error: ProgramError, interruptReason: InterruptReason | undefined): ProgramVerdict {
  if (interruptReason === 'stop') return { status: 'completed', value: undefined, stoppedAfterFirstRequest: true };
  if (interruptReason === 'deadline') return { status: 'timeout' };
  if (interruptReason === 'memory') return { status: 'memory-limit' };
  if (interruptReason === 'nesting') return { status: 'stack-overflow' };
  if (error.name === 'SyntaxError' && error.message === 'stack overflow') return { status: 'stack-overflow' };
  if (error.name === 'InternalError') {
    if (error.message === 'out of memory' || error.message === 'string too long') return { status: 'memory-limit' };
    if (error.message === 'stack overflow') return { status: 'stack-overflow' };
    if (error.message === 'interrupted') return { status: 'timeout' };
  }
  return { status: 'error', error };
}

function unwrapInfrastructure(vm: QuickJSContext, result: ReturnType<QuickJSContext['evalCode']>): QuickJSHandle {
  if (!result.error) return result.value;
  const detail = JSON.stringify(vm.dump(result.error));
  result.error.dispose();
  throw new Error(`sandbox prelude failed: ${detail}`);
}

/**
 * The contract for running model-written JavaScript. Code suites (webapi, stateful) program against these
 * types only; `createSandbox()` in ./index.ts returns the QuickJS/WASM implementation.
 *
 * How a program runs:
 * - `code` is the body of an `async function`: top-level `await` and `return` work; the returned value (JSON) is
 *   the result's `value`. `const axios = require('axios')` and `import axios from 'axios'` lines work
 *   (`require` knows only 'axios', 'form-data' and 'node-fetch'; anything else throws "Cannot find module").
 *   `import()` fails. Errors report lines of the program plus one (the wrapper's first line).
 * - Globals: `axios`, `fetch`, `Response`, `URL`, `URLSearchParams`, `FormData`, `Blob`, `File`, `Headers`,
 *   `AbortController`, `btoa`/`atob`, `TextEncoder`/`TextDecoder`, a small `Buffer`, `module.exports`,
 *   `console` (captured), `setTimeout`/`setInterval`/`setImmediate`/`clear*`/
 *   `queueMicrotask` on a virtual clock, and the named `bindings`. Nothing from the host is reachable: no
 *   process, fs, network, real timers, WebAssembly, SharedArrayBuffer/Atomics.
 * - The run ends when nothing is left to do (Node's rule): after the body settles, pending host calls and timers
 *   still run (their requests are recorded) until idle or the deadline; the verdict is the body's.
 * - Timers run on a virtual clock: when the program is idle (no pending jobs, no host call in flight) the next
 *   timer fires at once and the clock jumps to its due time. `Date.now()` / `new Date()` start at
 *   `virtualEpochMs` and advance only with that clock; `Math.random()` is seeded. Same program => same result.
 * - HTTP is never sent. Every axios/fetch request is recorded (see RecordedRequest) and answered by
 *   `http.respond`: a canned response (default 200 with `{}`), or a host function called per request.
 */
import type { JsonValue } from '../core/json.ts';
import type { Bindings, HttpResponder, HttpResponse, ProgramResult, ProgramTrace } from '../core/program.ts';

export type {
  Binding, BindingFunction, Bindings, BodyType, ConsoleEntry, HttpResponder, HttpResponse, ProgramError, RecordedRequest,
} from '../core/program.ts';
/** Present on every result, whatever happened (defined in core: see src/core/program.ts). */
export type SandboxTrace = ProgramTrace;
/** The verdict on a program (defined in core: see src/core/program.ts). */
export type SandboxResult = ProgramResult;

export type SandboxLimits = {
  /** Wall-clock budget for the whole program, host calls included. */
  timeLimitMs: number;
  /**
   * QuickJS heap limit. Large string and typed-array buffers, which QuickJS's own accounting misses, are charged
   * against it separately, and the WASM heap is watched as a last resort. A worker's WASM memory also has a hard
   * ceiling (twice the pool's default limit plus 32 MB, at least 96 MB): a program with a larger limit of its
   * own ends as `memory-limit` there.
   */
  memoryLimitBytes: number;
  /** QuickJS stack limit; must stay below 512 KiB (larger values overflow the host stack). */
  stackLimitBytes: number;
};

export const defaultSandboxLimits: SandboxLimits = {
  timeLimitMs: 2_000,
  memoryLimitBytes: 32 * 1024 * 1024,
  stackLimitBytes: 256 * 1024,
};

/** Largest stack limit the sandbox accepts (see reference/deps.md section 2). */
export const maximumStackLimitBytes = 256 * 1024;

/**
 * Deepest nesting of program data the host reads: a request (its body, params), a binding's arguments, the
 * returned value. Deeper data ends the program as `stack-overflow` (it would overflow the host's stack).
 */
export const maximumNestingDepth = 128;

/**
 * Bounds on what one program may leave in its result, so a hostile program cannot grow host memory. A string
 * cut to its cap ends with `…[cut N characters; M in all]` (see src/core/cap-text.ts: `fullTextLength` reads M).
 * - an error's message and stack, a console entry: `textCaps.message` characters;
 * - a URL, a header name or value, a params key or value, every string inside a body or the returned value:
 *   `textCaps.field` characters;
 * - `requests` recorded requests and `requestCharacters` characters of them in all: a request beyond either
 *   is refused (the program sees a network error) and not recorded;
 * - `logEntries` console entries and `logCharacters` characters in all, then one warning that output was dropped.
 */
export const traceCaps = Object.freeze({
  requests: 10_000,
  requestCharacters: 4 * 1024 * 1024,
  logEntries: 1_000,
  logCharacters: 200_000,
});

/** The Accept header axios adds to every request. */
export const axiosDefaultAccept = 'application/json, text/plain, */*';

export const defaultHttpResponse: HttpResponse = {
  status: 200,
  headers: { 'content-type': 'application/json' },
  data: {},
};

export type HttpOptions = {
  /** A canned response for every request (default `defaultHttpResponse`), or a host responder. */
  respond?: HttpResponse | HttpResponder;
  /**
   * 'run-all' (default): the whole program runs. 'stop-after-first-request': the program is stopped right
   * after its first request is recorded and the run completes (`stoppedAfterFirstRequest: true`), which is how
   * WAPIIBench keeps excess code after the invocation from running.
   */
  excessCode?: 'run-all' | 'stop-after-first-request';
};

export type SandboxProgram = {
  /** The body of an async function (see the file comment). */
  code: string;
  limits?: Partial<SandboxLimits>;
  http?: HttpOptions;
  bindings?: Bindings;
  /** Seed of the in-sandbox Math.random (default 0). */
  seed?: number;
  /** What `Date.now()` returns at start (default 2024-01-01T00:00:00Z). */
  virtualEpochMs?: number;
};

export type SandboxStatus = SandboxResult['status'];

export type RunOptions = {
  /** Aborting terminates the program; `run()` then rejects with the signal's reason. */
  signal?: AbortSignal;
};

export interface Sandbox {
  /** Runs one program in a fresh QuickJS state. Throws SandboxError only for infrastructure failures. */
  run(program: SandboxProgram, options?: RunOptions): Promise<SandboxResult>;
  /** Stops the workers. Runs in flight reject with SandboxError. */
  dispose(): Promise<void>;
}

export type SandboxOptions = {
  /** Worker threads, each hosting one WASM module (default 2). Programs beyond that queue. */
  poolSize?: number;
  /** Limits used when a program gives none. */
  defaultLimits?: Partial<SandboxLimits>;
  /** Wall-clock grace after the deadline before the worker is terminated and replaced (default 500 ms). */
  backstopGraceMs?: number;
};

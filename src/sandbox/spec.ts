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

/** How a recorded body was decoded. */
export type BodyType = 'json' | 'form' | 'multipart' | 'text' | 'none';

/**
 * One intercepted request, logged as WAPIIBench's mock logs the axios request config (seeds-reference 2.4):
 * - `url`: URL-decoded (decodeURIComponent), query string removed; with an axios `baseURL` the joined URL.
 * - `method`: lower case.
 * - `headers`: as axios sends them: `Accept: ${axiosDefaultAccept}` by default, `Content-Type`
 *   set by axios (`application/json` for object bodies, form-urlencoded for strings / URLSearchParams and for
 *   post/put/patch without one); `Accept`/`Content-Type` keep that casing, other names as first written.
 *   fetch requests carry only the headers the program set (plus Content-Type for a body).
 * - `params`: the axios `params` object as given (numbers stay numbers; URLSearchParams -> strings) with the
 *   URL's query pairs added as strings (a key without `=` -> true; later pairs overwrite). Always an object.
 * - `data`: the body decoded: a string starting with `{` -> JSON; other strings -> form-urlencoded object
 *   (`k[]` -> array, `a[b][c]` -> nested, values strings); FormData -> object of strings; absent for no body;
 *   null/empty body -> `{}`. A body that cannot be decoded stays the raw string with `dataParseError` set
 *   (the reference's mock crashes there: callers may treat it as non-executable).
 */
export type RecordedRequest = {
  client: 'axios' | 'fetch';
  method: string;
  url: string;
  headers: Record<string, string>;
  params: Record<string, JsonValue>;
  data?: JsonValue;
  bodyType: BodyType;
  dataParseError?: string;
  /** Characters of each field that capping cut (`url`, `headers`, `params`, `data`), when any was cut. */
  cutCharacters?: Partial<Record<'url' | 'headers' | 'params' | 'data', number>>;
};

/** What a request gets back. `data` is a JSON value, or a string sent as a text body. */
export type HttpResponse = {
  status: number;
  headers?: Record<string, string>;
  data?: JsonValue;
};

export const defaultHttpResponse: HttpResponse = {
  status: 200,
  headers: { 'content-type': 'application/json' },
  data: {},
};

/**
 * Answers one request in the host (main thread). Throwing a ToolForgeError (e.g. SandboxError) aborts the run
 * and `run()` rejects with it (infrastructure); any other thrown error reaches the program as a network error.
 */
export type HttpResponder = (request: RecordedRequest) => HttpResponse | Promise<HttpResponse>;

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

/** A host function reachable from the sandbox. Arguments arrive as JSON; the result must be JSON-serialisable. */
export type BindingFunction = (...args: JsonValue[]) => unknown;

/**
 * How a binding looks inside the sandbox. A plain function returns a promise there (`await api.x(...)`);
 * `{ call, returns: 'value' }` returns the value synchronously (the sandbox blocks while the host computes it).
 * Errors thrown by `call` reach the program as an Error with the same name and message, except a
 * ToolForgeError (e.g. SandboxError), which aborts the run: `run()` rejects with it (infrastructure).
 */
export type Binding = BindingFunction | { call: BindingFunction; returns: 'promise' | 'value' };

/** A global function (`RESULT(x)`) or a namespace of functions (`api.createSession(...)`). */
export type Bindings = Record<string, Binding | Record<string, Binding>>;

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

export type ConsoleEntry = { level: 'log' | 'info' | 'warn' | 'error' | 'debug'; text: string };

/** Present on every result, whatever happened. */
export type SandboxTrace = {
  /** Requests recorded so far, in the order they were made. */
  requests: RecordedRequest[];
  logs: ConsoleEntry[];
  durationMs: number;
};

/** `message` and `stack` are capped (see `traceCaps`); `fullTextLength(message)` gives the length thrown. */
export type ProgramError = { name: string; message: string; stack?: string };

/**
 * The verdict on the program. All of these are the program's doing (score them); a failure of the sandbox itself
 * is a thrown SandboxError instead.
 * - completed: the async body returned (`value` is its JSON form, undefined when it returned nothing or a
 *   non-JSON value).
 * - error: it threw (including SyntaxError, require of an unknown module, import()) or a timer callback threw.
 * - timeout / memory-limit / stack-overflow: a limit was hit. `stack-overflow` also covers source too deeply
 *   nested to compile and program data nested deeper than `maximumNestingDepth` (sent, passed or returned).
 * - unsettled: it awaits a promise nothing can ever settle (no pending job, timer or host call remains).
 */
export type SandboxResult = SandboxTrace & (
  | { status: 'completed'; value: JsonValue | undefined; stoppedAfterFirstRequest: boolean }
  | { status: 'error'; error: ProgramError }
  | { status: 'timeout' }
  | { status: 'memory-limit' }
  | { status: 'stack-overflow' }
  | { status: 'unsettled' }
);

export type SandboxStatus = SandboxResult['status'];

export type RunOptions = {
  /** Aborting terminates the program; `run()` then rejects with the signal's reason. */
  signal?: AbortSignal;
};

export interface Sandbox {
  /** Runs one program in a fresh runtime. Throws SandboxError only for infrastructure failures. */
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

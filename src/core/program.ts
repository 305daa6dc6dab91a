/**
 * What a model-written program can reach and what running it gives, independent of the sandbox that runs it:
 * core owns these types so environments (which offer bindings) need not import the sandbox; src/sandbox
 * implements them and re-exports them under its own names (SandboxResult = ProgramResult).
 */
import type { JsonValue } from './json.ts';

/** How a recorded body was decoded. */
export type BodyType = 'json' | 'form' | 'multipart' | 'text' | 'none';

/**
 * One intercepted request, logged as WAPIIBench's mock logs the axios request config (seeds-reference 2.4):
 * - `url`: URL-decoded (decodeURIComponent), query string removed; with an axios `baseURL` the joined URL.
 * - `method`: lower case.
 * - `headers`: as axios sends them: the axios default `Accept` (axiosDefaultAccept, src/sandbox/spec.ts), `Content-Type`
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

/**
 * Answers one request in the host (main thread). Throwing a ToolForgeError (e.g. SandboxError) aborts the run
 * and `run()` rejects with it (infrastructure); any other thrown error reaches the program as a network error.
 */
export type HttpResponder = (request: RecordedRequest) => HttpResponse | Promise<HttpResponse>;

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

export type ConsoleEntry = { level: 'log' | 'info' | 'warn' | 'error' | 'debug'; text: string };

/** Present on every result, whatever happened. */
export type ProgramTrace = {
  /** Requests recorded so far, in the order they were made. */
  requests: RecordedRequest[];
  logs: ConsoleEntry[];
  durationMs: number;
};

/** `message` and `stack` are capped (see `traceCaps` in sandbox/spec.ts); `fullTextLength(message)` gives the length thrown. */
export type ProgramError = { name: string; message: string; stack?: string };

/**
 * The verdict on the program. All of these are the program's doing (score them); a failure of the sandbox itself
 * is a thrown SandboxError instead.
 * - completed: the async body returned (`value` is its JSON form, undefined when it returned nothing or a
 *   non-JSON value; `valueError` says why when the value was there but could not be read as JSON).
 * - error: it threw (including SyntaxError, require of an unknown module, import()) or a timer callback threw.
 * - timeout / memory-limit / stack-overflow: a limit was hit. `stack-overflow` also covers source too deeply
 *   nested to compile and program data nested deeper than `maximumNestingDepth` (sent, passed or returned).
 * - unsettled: it awaits a promise nothing can ever settle (no pending job, timer or host call remains).
 */
export type ProgramResult = ProgramTrace & (
  | {
    status: 'completed'; value: JsonValue | undefined; stoppedAfterFirstRequest: boolean;
    /** Why `value` is undefined though the program returned something: it could not be read as JSON. */
    valueError?: string;
  }
  | { status: 'error'; error: ProgramError }
  | { status: 'timeout' }
  | { status: 'memory-limit' }
  | { status: 'stack-overflow' }
  | { status: 'unsettled' }
);

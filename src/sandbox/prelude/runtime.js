// Fragment of the sandbox installer `(function (host, settingsJson) { ...fragments... })`, run inside QuickJS.
// The fragments share one scope; nothing here is reachable from the program except the globals they install.
// `host(op, payloadJson)` is the only host function; it returns JSON and is never exposed as a global.
'use strict';

// Captured now so a program that replaces globals cannot break recording or the host protocol.
const jsonStringify = JSON.stringify;
const jsonParse = JSON.parse;
const objectKeys = Object.keys;
const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
const settings = jsonParse(settingsJson);

// Captured before the program runs: a program may replace or fake them, and that only changes its own verdict.
const InternalErrorClass = InternalError;

function isStackOverflow(error) {
  return error instanceof InternalErrorClass && error.message === 'stack overflow';
}

/** Data too deeply nested to hand to the host: the host ends the program as a stack overflow. */
function reportNesting() {
  host('limit', '"nesting"');
  haltForHost();
}

/** Runs `action`; a stack overflow inside it (data nested too deeply for the shims) ends the program. */
function guardNesting(action) {
  try {
    return action();
  } catch (error) {
    if (isStackOverflow(error)) reportNesting();
    throw error;
  }
}

/** Calls the host; a `stop` reply (first request recorded, deadline, a limit) halts the program here. */
function hostCall(op, payload) {
  const text = guardNesting(() => jsonStringify(payload === undefined ? null : payload));
  const reply = jsonParse(host(op, text));
  if (reply !== null && reply.kind === 'stop') haltForHost();
  return reply;
}

/** A value as JSON (undefined -> null), or a TypeError naming what cannot be sent. */
function toJsonValue(value) {
  if (value === undefined) return null;
  return guardNesting(() => {
    const text = jsonStringify(value);
    return text === undefined ? null : jsonParse(text);
  });
}

/** A null-prototype record of strings, so a tampered Object.prototype.toJSON cannot change what the host reads. */
function describeError(error) {
  const description = Object.create(null);
  try {
    if (error !== null && typeof error === 'object' && 'message' in error) {
      description.name = String(error.name === undefined ? 'Error' : error.name);
      description.message = String(error.message);
      if (error.stack) description.stack = String(error.stack);
    } else {
      description.name = 'Error';
      description.message = 'Uncaught ' + inspect(error);
    }
  } catch (failure) {
    description.name = 'Error';
    description.message = 'Uncaught exception (not describable)';
  }
  return description;
}

const errorClasses = { Error, TypeError, RangeError, SyntaxError, ReferenceError, URIError, EvalError };

/** Rebuilds an error the host described, keeping its name. */
function makeError(descriptor) {
  const ErrorClass = hasOwn(errorClasses, descriptor.name) ? errorClasses[descriptor.name] : Error;
  const error = new ErrorClass(descriptor.message);
  if (error.name !== descriptor.name) error.name = descriptor.name;
  return error;
}

// ---- pending host calls (async bindings, host-answered HTTP) ----
const pendingCalls = new Map();

function awaitHostCall(callId) {
  return new Promise((resolve, reject) => pendingCalls.set(callId, { resolve, reject }));
}

/** The host is stopping the program (first request recorded, or deadline): spin until its interrupt lands. */
function haltForHost() {
  for (;;) { /* interrupted by the host */ }
}

// ---- console ----
function inspect(value, depth = 0) {
  if (typeof value === 'string') return depth === 0 ? value : jsonStringify(value);
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return '[Function: ' + (value.name || 'anonymous') + ']';
  if (typeof value === 'bigint') return String(value) + 'n';
  if (typeof value === 'symbol') return String(value);
  if (value instanceof Error) return value.stack ? value.name + ': ' + value.message + '\n' + value.stack : value.name + ': ' + value.message;
  if (value === null || typeof value !== 'object') return String(value);
  if (depth > 4) return Array.isArray(value) ? '[Array]' : '[Object]';
  if (Array.isArray(value)) return '[ ' + value.map((item) => inspect(item, depth + 1)).join(', ') + ' ]';
  if (typeof value.toJSON === 'function') {
    try { return inspect(value.toJSON(), depth); } catch (error) { /* fall through */ }
  }
  const keys = objectKeys(value);
  if (keys.length === 0) return '{}';
  return '{ ' + keys.map((key) => key + ': ' + inspect(value[key], depth + 1)).join(', ') + ' }';
}

function formatLog(args) {
  if (args.length === 0) return '';
  let rest = args;
  let head = '';
  if (typeof args[0] === 'string' && args[0].includes('%')) {
    let index = 1;
    head = args[0].replace(/%([sdifjoO%])/g, (match, kind) => {
      if (kind === '%') return '%';
      if (index >= args.length) return match;
      const argument = args[index++];
      if (kind === 's') return typeof argument === 'string' ? argument : inspect(argument, 1);
      if (kind === 'd' || kind === 'i') return String(kind === 'i' ? parseInt(argument, 10) : Number(argument));
      if (kind === 'f') return String(parseFloat(argument));
      if (kind === 'j') { try { return jsonStringify(argument); } catch (error) { return '[Circular]'; } }
      return inspect(argument, 1);
    });
    rest = args.slice(index);
    return [head, ...rest.map((item) => inspect(item))].join(' ');
  }
  return rest.map((item) => inspect(item)).join(' ');
}

const consoleLevels = { log: 'log', info: 'info', warn: 'warn', error: 'error', debug: 'debug', trace: 'debug', dir: 'log', table: 'log' };
const sandboxConsole = {};
for (const method of objectKeys(consoleLevels)) {
  sandboxConsole[method] = function (...args) {
    hostCall('log', { level: consoleLevels[method], text: formatLog(args) });
  };
}
globalThis.console = sandboxConsole;

// ---- large allocations ----
// QuickJS's memory limit does not see large string and typed-array buffers (measured: 160 MB of Uint8Arrays
// under a 32 MB limit), so every built-in that makes one is charged here: ArrayBuffer (and its resize and
// transfer), every typed array kind the engine has (found by prototype, so Float16Array and any later kind are
// included), and the string builders that take a length. The host also watches the WASM heap.
// SharedArrayBuffer and Atomics are removed; WebAssembly does not exist in this build.
const largeAllocationBytes = 64 * 1024;
let largeAllocated = 0;

function chargeAllocation(bytes) {
  if (!(bytes >= largeAllocationBytes)) return;
  largeAllocated += bytes;
  if (largeAllocated > settings.memoryLimitBytes) throw new InternalError('out of memory');
}

const TypedArray = Object.getPrototypeOf(Int8Array);
const RealArrayBuffer = ArrayBuffer;
const typedArrayNames = Object.getOwnPropertyNames(globalThis).filter((name) => {
  const value = globalThis[name];
  return typeof value === 'function' && value !== TypedArray && Object.getPrototypeOf(value) === TypedArray;
});

/**
 * Replaces a constructor by a charging proxy: `bytesBefore` is charged before the allocation (so one huge
 * allocation never happens), and what the result holds beyond that estimate is charged after (iterables).
 */
function chargedConstructor(name, bytesBefore, bytesAfter) {
  const target = globalThis[name];
  if (typeof target !== 'function') return;
  const charged = new Proxy(target, {
    construct(constructor, args, newTarget) {
      const estimate = bytesBefore(args, constructor);
      chargeAllocation(estimate);
      const result = Reflect.construct(constructor, args, newTarget === charged ? constructor : newTarget);
      const extra = bytesAfter(result, args) - estimate;
      if (extra > 0) chargeAllocation(extra);
      return result;
    },
  });
  // Species lookups (slice, map, subarray) go through `constructor`, so they are charged too.
  Object.defineProperty(target.prototype, 'constructor', { value: charged, writable: true, configurable: true });
  globalThis[name] = charged;
}

/** A typed array over an existing buffer allocates nothing. */
const isBuffer = (value) => value instanceof RealArrayBuffer;

chargedConstructor(
  'ArrayBuffer',
  (args) => Number(args[0]) || 0,
  (result) => result.byteLength,
);
for (const [method, bytesOf] of [
  ['resize', (buffer, args) => (Number(args[0]) || 0) - buffer.byteLength],
  ['transfer', (buffer, args) => (args[0] === undefined ? buffer.byteLength : Number(args[0]) || 0)],
  ['transferToFixedLength', (buffer, args) => (args[0] === undefined ? buffer.byteLength : Number(args[0]) || 0)],
]) {
  const original = RealArrayBuffer.prototype[method];
  if (typeof original !== 'function') continue;
  Object.defineProperty(RealArrayBuffer.prototype, method, {
    value: { [method](...args) { chargeAllocation(bytesOf(this, args)); return original.apply(this, args); } }[method],
    writable: true,
    configurable: true,
  });
}
for (const name of typedArrayNames) {
  chargedConstructor(
    name,
    (args, constructor) => {
      const source = args[0];
      let length = 0;
      if (typeof source === 'number') length = source;
      else if (source !== null && typeof source === 'object' && !isBuffer(source) && typeof source.length === 'number') length = source.length;
      return length * constructor.BYTES_PER_ELEMENT;
    },
    (result, args) => (isBuffer(args[0]) ? 0 : result.byteLength),
  );
}
delete globalThis.SharedArrayBuffer;
delete globalThis.Atomics;
delete globalThis.WebAssembly;

for (const [method, bytesOf] of [
  ['repeat', (text, args) => text.length * (Number(args[0]) || 0)],
  ['padStart', (text, args) => Number(args[0]) || 0],
  ['padEnd', (text, args) => Number(args[0]) || 0],
]) {
  const original = String.prototype[method];
  Object.defineProperty(String.prototype, method, {
    value: { [method](...args) { chargeAllocation(bytesOf(String(this), args)); return original.apply(this, args); } }[method],
    writable: true,
    configurable: true,
  });
}

// String builders whose size the program does not pass as a number: charged by the length they return (the
// string exists by then, but a loop of them is stopped long before the host notices).
function chargeResult(result) {
  if (typeof result === 'string') chargeAllocation(result.length);
  return result;
}

for (const [owner, method] of [
  [Array.prototype, 'join'], [String.prototype, 'concat'], [String.prototype, 'replace'], [String.prototype, 'replaceAll'],
  [String.prototype, 'toUpperCase'], [String.prototype, 'toLowerCase'], [String.prototype, 'normalize'], [JSON, 'stringify'],
]) {
  const original = owner[method];
  if (typeof original !== 'function') continue;
  Object.defineProperty(owner, method, {
    value: { [method](...args) { return chargeResult(original.apply(this, args)); } }[method],
    writable: true,
    configurable: true,
  });
}

// ---- seeded Math.random (mulberry32) ----
let randomState = (Number(settings.seed) >>> 0);
Math.random = function random() {
  randomState = (randomState + 0x6D2B79F5) | 0;
  let t = randomState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

// ---- virtual clock: Date ----
let virtualNow = Number(settings.virtualEpochMs);
const RealDate = Date;
function VirtualDate(...args) {
  if (!new.target) return new RealDate(virtualNow).toString();
  return Reflect.construct(RealDate, args.length === 0 ? [virtualNow] : args, new.target);
}
VirtualDate.prototype = RealDate.prototype;
Object.defineProperty(RealDate.prototype, 'constructor', { value: VirtualDate, writable: true, configurable: true });
VirtualDate.now = function now() { return virtualNow; };
VirtualDate.parse = RealDate.parse;
VirtualDate.UTC = RealDate.UTC;
globalThis.Date = VirtualDate;

// ---- virtual clock: timers fire when the program is idle, in (due time, creation) order ----
const timers = new Map();
let timerSequence = 0;
let uncaughtTimerError;
let hasUncaughtTimerError = false;

function scheduleTimer(callback, delay, args, repeat) {
  if (typeof callback !== 'function') throw new TypeError('The "callback" argument must be of type function');
  const id = ++timerSequence;
  const milliseconds = Math.max(0, Number(delay) || 0);
  timers.set(id, { callback, args, due: virtualNow + milliseconds, order: id, interval: repeat ? Math.max(1, milliseconds) : null });
  return id;
}

function clearTimer(id) {
  timers.delete(Number(id));
}

globalThis.setTimeout = (callback, delay, ...args) => scheduleTimer(callback, delay, args, false);
globalThis.setInterval = (callback, delay, ...args) => scheduleTimer(callback, delay, args, true);
globalThis.setImmediate = (callback, ...args) => scheduleTimer(callback, 0, args, false);
globalThis.clearTimeout = clearTimer;
globalThis.clearInterval = clearTimer;
globalThis.clearImmediate = clearTimer;
globalThis.queueMicrotask = (callback) => {
  if (typeof callback !== 'function') throw new TypeError('The "callback" argument must be of type function');
  Promise.resolve().then(() => callback());
};

function fireNextTimer() {
  let nextId;
  let next;
  for (const [id, timer] of timers) {
    if (!next || timer.due < next.due || (timer.due === next.due && timer.order < next.order)) {
      nextId = id;
      next = timer;
    }
  }
  if (!next) return false;
  if (next.due > virtualNow) virtualNow = next.due;
  if (next.interval === null) {
    timers.delete(nextId);
  } else {
    next.due = virtualNow + next.interval;
    next.order = ++timerSequence;
  }
  try {
    next.callback(...next.args);
  } catch (error) {
    if (!hasUncaughtTimerError) {
      hasUncaughtTimerError = true;
      uncaughtTimerError = error;
    }
  }
  return true;
}

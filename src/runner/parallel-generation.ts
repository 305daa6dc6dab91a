/**
 * Tasks as JSON lines, made on several threads when the suite allows it. Making a funcgen task and writing its
 * ~17 KB of JSON cost the same on every task and need nothing from the task before, so `toolforge generate` of
 * thousands of tasks used one of the machine's cores. A suite whose task i depends on the seed, i and the knobs
 * alone (`Suite.makesTasksByIndex`) has its stream cut into ranges, made by generation threads in turn (range k on
 * thread k mod n) through the same checks as one-thread generation, and written in order: the bytes are the same
 * whatever the number of threads. Anything else (transforms, a phrasing model, a data set's importer, a suite the
 * registry does not hold) is made on this thread, as before.
 */
import { availableParallelism } from 'node:os';
import type { JsonObject } from '../core/json.ts';
import { ConfigError, ToolForgeError } from '../core/errors.ts';
import { startModuleWorker } from '../core/module-worker.ts';
import { getSuite } from '../suites/registry.ts';
import type { Suite } from '../suites/spec.ts';
import { checkGenerationCall, streamGeneratedTasks } from './generate-tasks.ts';
import type { GenerateTasksOptions } from './generate-tasks.ts';
import type { TransferredError } from '../core/transferred-error.ts';
import { receiveError } from '../core/transferred-error.ts';

/** What a generation thread is started with (structured-cloned). */
export type GenerationJob = { suiteId: string; seed: number; params: JsonObject; validate: boolean };

/** One range of the stream, tasks `from` .. `to` - 1. */
export type GenerationRequest = { from: number; to: number };

/** What a generation thread is sent: a range to make, or a range's buffer handed back, written, to fill again. */
export type GenerationThreadMessage = ({ type: 'range' } & GenerationRequest) | { type: 'spare'; bytes: ArrayBuffer };

export type GenerationMessage =
  | { type: 'made'; from: number; bytes: ArrayBuffer; length: number; ids: string[] }
  | { type: 'error'; from: number; error: TransferredError };

export type TaskLinesOptions = GenerateTasksOptions & {
  /**
   * Generation threads (default: one per core, at most 4, for 2,048 tasks or more; else none). 1 makes every task on
   * this thread. Only a suite that makes its tasks by index uses them. More than the machine's cores are not started
   * (each holds a copy of the suite and would only wait for a core); the bytes are the same either way.
   */
  threads?: number;
  /**
   * Each range's bytes are taken back, to be filled again, when the next item is asked for (default false): for a
   * consumer that is done with each before it asks for the next, as `toolforge generate` is (it writes them). A new
   * 8 MB buffer per range made V8 collect both threads' whole heaps every ~70 ms (external memory it must account
   * for): 20,000 funcgen tasks took 5.1 s on two threads that way, against 3.7 s on one.
   */
  reuseBytes?: boolean;
};

/** Lines of JSONL as UTF-8 bytes, each line ending in a newline: a generation thread's range, written as it is. */
export type JsonlBytes = { bytes: Uint8Array; lines: number };

/** Tasks per range: a thread's answer is ~4 MB of funcgen JSON, and few messages cross the thread boundary. */
const rangeSize = 256;
/** Ranges asked of each thread ahead of the one being written: it never waits on this thread, and memory stays a few ranges. */
const rangesAhead = 2;
/** Fewer tasks than this are made on this thread: starting a thread (loading the suite) costs ~0.3 s. */
const parallelFromTasks = 2048;
const mostThreads = 4;

/** The tasks of `generateTasks` with these options, each as its JSON line (no newline), in order. */
export async function* generateTaskLines(suite: Suite, options: TaskLinesOptions): AsyncGenerator<string> {
  for await (const item of generateTaskJsonl(suite, options)) {
    if (typeof item === 'string') yield item;
    // JSON text holds no raw newline: each newline ends a line.
    else yield* Buffer.from(item.bytes.buffer, item.bytes.byteOffset, item.bytes.byteLength).toString('utf8').slice(0, -1).split('\n');
  }
}

/**
 * The same tasks as JSONL to write out: a line (string, no newline) each when made on this thread, and a range's
 * bytes when made on generation threads (passed on unread: writing them is the only work left on this thread).
 */
export async function* generateTaskJsonl(suite: Suite, options: TaskLinesOptions): AsyncGenerator<string | JsonlBytes> {
  checkGenerationCall(suite, options);
  const { threads: asked, reuseBytes = false, ...generation } = options;
  if (asked !== undefined && !(Number.isSafeInteger(asked) && asked >= 1)) {
    throw new ConfigError('config.invalid', `generate: threads must be a whole number from 1, got ${asked}`, { fix: 'pass threads: 1 to make every task on this thread, or leave it out' });
  }
  const count = generation.count ?? suite.defaultCount;
  const from = generation.from ?? 0;
  const threads = !canGenerateOnThreads(suite, generation) ? 1
    : asked !== undefined ? Math.min(asked, availableParallelism())
      : count - from >= parallelFromTasks ? Math.min(mostThreads, availableParallelism()) : 1;
  if (threads < 2 || count - from <= 0) {
    for await (const task of streamGeneratedTasks(suite, generation)) yield JSON.stringify(task);
    return;
  }
  yield* jsonlOnThreads(suite, { seed: generation.seed, params: generation.params, validate: generation.validate ?? true }, from, count, threads, generation.signal, reuseBytes);
}

function canGenerateOnThreads(suite: Suite, options: GenerateTasksOptions): boolean {
  if (suite.makesTasksByIndex !== true || suite.streamTasks === undefined) return false;
  if ((options.transforms?.length ?? 0) > 0 || options.phrasingModel !== undefined || options.paraphraseCache !== undefined) return false;
  try {
    // A thread loads the suite from the registry: a suite defined by the caller cannot be loaded there.
    return getSuite(suite.id) === suite;
  } catch {
    return false;
  }
}

async function* jsonlOnThreads(
  suite: Suite, job: Omit<GenerationJob, 'suiteId'>, from: number, count: number, threadCount: number, signal: AbortSignal | undefined,
  reuseBytes: boolean,
): AsyncGenerator<JsonlBytes> {
  const ranges: GenerationRequest[] = [];
  for (let start = from; start < count; start += rangeSize) ranges.push({ from: start, to: Math.min(count, start + rangeSize) });
  const threads = Array.from({ length: Math.min(threadCount, ranges.length) }, () => startGenerationThread({ ...job, suiteId: suite.id }));
  const ask = (index: number): void => {
    const range = ranges[index];
    if (range) threads[index % threads.length]?.ask(range);
  };
  const aborted = signal ? new Promise<undefined>((resolve) => {
    if (signal.aborted) resolve(undefined);
    signal.addEventListener('abort', () => resolve(undefined), { once: true });
  }) : undefined;
  try {
    for (let index = 0; index < threads.length * rangesAhead; index += 1) ask(index);
    const seen = new Set<string>();
    for (let index = 0; index < ranges.length; index += 1) {
      // Stopped (Ctrl-C): the tasks handed on so far stand, as on one thread.
      if (signal?.aborted) return;
      const thread = threads[index % threads.length] as GenerationThread;
      const made = await (aborted ? Promise.race([thread.next(), aborted]) : thread.next());
      if (made === undefined) return;
      ask(index + threads.length * rangesAhead);
      for (const id of made.ids) {
        // Each thread checks its own range; a duplicate across ranges is caught here, as one thread would.
        if (seen.has(id)) {
          throw new ToolForgeError('suite.invalid-task', `suite '${suite.id}' generated task '${id}' with a wrong suite stamp (${suite.id} ${suite.version}) or a duplicate id`, {
            fix: `this is a bug in suite ${suite.id}; please report it with the seed and --set values`,
          });
        }
        seen.add(id);
      }
      yield { bytes: made.bytes, lines: made.ids.length };
      if (reuseBytes) thread.giveBack(made.bytes.buffer as ArrayBuffer);
    }
  } finally {
    await Promise.all(threads.map((thread) => thread.stop()));
  }
}

type Made = { bytes: Uint8Array; ids: string[] };

type GenerationThread = {
  ask(range: GenerationRequest): void;
  /** The lines and ids of the oldest range asked and not yet taken; rejects with its error. */
  next(): Promise<Made>;
  /** A range's buffer, written, handed back (detached here) for the thread to fill again. */
  giveBack(bytes: ArrayBuffer): void;
  stop(): Promise<void>;
};

function startGenerationThread(job: GenerationJob): GenerationThread {
  const worker = startModuleWorker(import.meta.url, './generation-thread', { workerData: job });
  type Waiting = { promise: Promise<Made>; resolve: (made: Made) => void; reject: (error: Error) => void };
  const waiting: Waiting[] = [];
  let failure: Error | undefined;
  let stopping = false;
  const fail = (error: Error): void => {
    failure ??= error;
    for (const entry of waiting.splice(0)) entry.reject(failure);
  };
  worker.on('message', (message: GenerationMessage) => {
    const entry = waiting.shift();
    if (!entry) return;
    if (message.type === 'made') entry.resolve({ bytes: new Uint8Array(message.bytes, 0, message.length), ids: message.ids });
    else entry.reject(receiveError(message.error));
  });
  worker.on('error', (error) => fail(error));
  worker.once('exit', (code) => {
    if (!stopping) fail(new ToolForgeError('internal', `a generation thread stopped (exit code ${code}) before its tasks were made`));
  });
  const taken: Waiting[] = [];
  return {
    ask(range) {
      let settle: Pick<Waiting, 'resolve' | 'reject'> | undefined;
      const promise = new Promise<Made>((resolve, reject) => { settle = { resolve, reject }; });
      // Asked ahead and never taken when the stream stops early: its failure needs no handler.
      promise.catch(() => {});
      const entry = { promise, ...(settle as Pick<Waiting, 'resolve' | 'reject'>) };
      taken.push(entry);
      if (failure) entry.reject(failure);
      else {
        waiting.push(entry);
        worker.postMessage({ type: 'range', ...range } satisfies GenerationThreadMessage);
      }
    },
    next() {
      const entry = taken.shift();
      if (!entry) return Promise.reject(new ToolForgeError('internal', 'a generation thread was asked for a range it was not given'));
      return entry.promise;
    },
    giveBack(bytes) {
      if (!failure && !stopping) worker.postMessage({ type: 'spare', bytes } satisfies GenerationThreadMessage, [bytes]);
    },
    async stop() {
      stopping = true;
      await worker.terminate();
    },
  };
}


/**
 * A sandbox worker thread: hosts one QuickJS WASM module and runs one program at a time for the main thread
 * (quickjs-sandbox.ts). Requests and console output are streamed as they happen, so a worker terminated at
 * the wall-clock backstop loses nothing already recorded. Synchronous host calls block on a shared flag and
 * read their reply from a dedicated port.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSSyncVariant } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { prepareModule, runProgram, wasmHeapBytes, type HostBridge, type PreparedModule } from './run-program.ts';
import type { HostReply, MainToWorker, SyncReply, WorkerToMain } from './worker-protocol.ts';

/** `wasmMemoryBytes`: the most WASM memory this worker's module may grow to (see quickjs-sandbox.ts). */
export type SandboxWorkerData = { syncPort: MessagePort; syncFlag: SharedArrayBuffer; wasmMemoryBytes: number };

const port = parentPort;
if (!port) throw new Error('sandbox-worker.ts must run in a worker thread');
const { syncPort, syncFlag, wasmMemoryBytes } = workerData as SandboxWorkerData;
const flag = new Int32Array(syncFlag);

const send = (message: WorkerToMain): void => port.postMessage(message);

type Settlement = { callId: number; reply: HostReply };
let currentRunId: number | null = null;
const settlements: Settlement[] = [];
let wakeSettlementWaiter: (() => void) | undefined;

const wasmPageBytes = 64 * 1024;
/**
 * A hard ceiling on the module's memory: a built-in that allocates between two interrupt checks (e.g.
 * `new Array(1e5).fill(1)` in a loop) cannot be stopped by the heap watch, so growth past this fails inside
 * QuickJS as 'out of memory' instead of taking host memory until the wall-clock backstop.
 */
const maximumPages = Math.ceil(wasmMemoryBytes / wasmPageBytes);

/**
 * A fresh module with a fresh memory, so the heap watch (run-program.ts) measures from a small heap again, prepared
 * to run programs from its memory image.
 */
async function createModule(): Promise<PreparedModule> {
  const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: maximumPages });
  // The package's CommonJS typings hide that the ESM default export is the variant itself.
  const module = await newQuickJSWASMModuleFromVariant(newVariant(variant as unknown as QuickJSSyncVariant, { wasmMemory }));
  return prepareModule(module, wasmMemory);
}

/**
 * A dropped module's WASM memory (up to the ceiling, grown by the program a limit stopped) is freed only when
 * this isolate collects it, and a worker's small JavaScript heap gives V8 little reason to: with four workers
 * dropping modules in turn, dead memories added 60 to 100 MB to a hostile run's peak RSS. So the worker
 * collects right after dropping one. `--expose-gc` set at run time exposes `gc` to contexts made afterwards.
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** A fresh module once the spent one (no longer referenced by the caller) is collected. */
function replaceModule(): Promise<PreparedModule> {
  return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    collectGarbage();
    return createModule();
  });
}

/** Replaced after a program a limit stopped (see run-program.ts `moduleSpent`); runs wait for the current one. */
let modulePromise = createModule();
/**
 * WASM memory never shrinks, and the heap watch cannot see free room inside a grown heap: once programs grew
 * the heap this much, the module is replaced too, which bounds what the next program can use unseen.
 */
const replaceAboveBytes = wasmHeapBytes((await modulePromise).module) + 48 * 1024 * 1024;
// A worker whose fresh module cannot be made is replaced by the main thread.
const onModuleFailure = (error: unknown): void => {
  send({ type: 'crashed', runId: currentRunId, message: `could not create the QuickJS module: ${String(error)}` });
  process.exit(1);
};

function bridgeFor(runId: number): HostBridge {
  return {
    log: (entry) => send({ type: 'log', runId, entry }),
    record: (request) => send({ type: 'request', runId, request }),
    startCall: (callId, call) => send({ type: 'host-call', runId, callId, sync: false, call }),
    callSync(callId, call, deadline) {
      send({ type: 'host-call', runId, callId, sync: true, call });
      for (;;) {
        let message = receiveMessageOnPort(syncPort);
        while (message) {
          const reply = message.message as SyncReply;
          if (reply.runId === runId && reply.callId === callId) return reply.reply;
          message = receiveMessageOnPort(syncPort);
        }
        const remaining = deadline - Date.now();
        if (remaining <= 0) return 'timeout';
        Atomics.wait(flag, 0, 0, remaining);
        Atomics.store(flag, 0, 0);
      }
    },
    nextSettlement(deadline) {
      const next = settlements.shift();
      if (next) return Promise.resolve(next);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          wakeSettlementWaiter = undefined;
          resolve('timeout');
        }, Math.max(0, deadline - Date.now()));
        wakeSettlementWaiter = () => {
          clearTimeout(timer);
          wakeSettlementWaiter = undefined;
          resolve(settlements.shift() ?? 'timeout');
        };
      });
    },
  };
}

port.on('message', (message: MainToWorker) => {
  if (message.type === 'settle') {
    if (message.runId !== currentRunId) return;
    settlements.push({ callId: message.callId, reply: message.reply });
    wakeSettlementWaiter?.();
    return;
  }
  const { runId, job } = message;
  currentRunId = runId;
  settlements.length = 0;
  modulePromise.then((current) => runProgram(current, job, bridgeFor(runId)).then((run) => ({ ...run, current }))).then(
    ({ verdict, moduleSpent, current }) => {
      currentRunId = null;
      if (moduleSpent || wasmHeapBytes(current.module) > replaceAboveBytes) {
        modulePromise = replaceModule();
        modulePromise.catch(onModuleFailure);
      }
      send({ type: 'done', runId, verdict, retire: false });
    },
    (error: unknown) => {
      // The WASM module aborted or our own code failed: the main thread replaces this worker.
      send({ type: 'crashed', runId, message: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error) });
      process.exit(1);
    },
  );
});

send({ type: 'ready' });

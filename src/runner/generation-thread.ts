/**
 * A generation thread (see parallel-generation.ts): makes the ranges of a built-in suite's task stream it is asked
 * for, one after another, through the same checks as one-thread generation, and posts each range's JSONL (its bytes,
 * transferred) and task ids.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadSuite } from '../suites/load-suite.ts';
import type { Suite, TaskLine } from '../suites/spec.ts';
import { uncheckedTaskLines } from './unchecked-task-lines.ts';
import type { GenerationJob, GenerationMessage, GenerationRequest, GenerationThreadMessage } from './parallel-generation.ts';
import { transferError } from '../core/transferred-error.ts';

const job = workerData as GenerationJob;
const port = parentPort;
const post = (message: GenerationMessage): void => port?.postMessage(message);
let queue = Promise.resolve();
/** Buffers of ranges already written, handed back to be filled again (see TaskLinesOptions.reuseBytes). */
const spares: ArrayBuffer[] = [];

/** A range's JSONL starts in a buffer this large (a funcgen range is ~4.4 MB) and doubles when it must. */
const initialBytes = 8 << 20;

/**
 * The range's tasks as JSON lines, through the checks one-thread generation makes. Unchecked tasks (--no-validate) need
 * only the suite and the shape check (or its own line writer): the oracle pipeline (sandbox, models, transforms) is
 * loaded only when tasks are solved.
 */
async function linesOf(suite: Suite, from: number, to: number): Promise<AsyncIterable<TaskLine>> {
  if (!job.validate) return uncheckedTaskLines(suite, { seed: job.seed, count: to, params: job.params }, from);
  const { streamGeneratedTasks } = await import('./generate-tasks.ts');
  const tasks = streamGeneratedTasks(suite, { seed: job.seed, count: to, params: job.params, validate: job.validate, from });
  return (async function* () {
    for await (const task of tasks) yield { id: task.id, line: JSON.stringify(task) };
  })();
}

async function makeRange({ from, to }: GenerationRequest): Promise<void> {
  try {
    const suite = await loadSuite(job.suiteId);
    // The lines go straight into off-heap memory, handed to the writing thread without a copy: held as strings, a
    // range's ~4 MB outlived young-generation collections here and was copied again on the other side.
    const spare = spares.pop();
    let buffer = spare ? Buffer.from(spare) : Buffer.allocUnsafeSlow(initialBytes);
    let length = 0;
    const ids: string[] = [];
    for await (const { id, line } of await linesOf(suite, from, to)) {
      // At most 3 bytes of UTF-8 per UTF-16 unit, and the newline.
      const room = length + 3 * line.length + 1;
      if (room > buffer.length) {
        const larger = Buffer.allocUnsafeSlow(Math.max(2 * buffer.length, room));
        buffer.copy(larger, 0, 0, length);
        buffer = larger;
      }
      length += buffer.write(line, length);
      buffer[length] = 0x0a;
      length += 1;
      ids.push(id);
    }
    const bytes = buffer.buffer as ArrayBuffer;
    port?.postMessage({ type: 'made', from, bytes, length, ids } satisfies GenerationMessage, [bytes]);
  } catch (error) {
    post({ type: 'error', from, error: transferError(error) });
  }
}

port?.on('message', (message: GenerationThreadMessage) => {
  if (message.type === 'spare') spares.push(message.bytes);
  // Ranges are made in the order asked, so the answers come back in that order.
  else queue = queue.then(() => makeRange({ from: message.from, to: message.to }));
});

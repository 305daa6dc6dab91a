import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { basename, dirname, join } from 'node:path';
import type { JsonlBytes } from '../runner/parallel-generation.ts';
import type { CliIo } from './cli-io.ts';
import { cannotWriteOutput, checkOutputPath } from './output-path.ts';
import { Interrupted, onStopSignal } from './stop-signals.ts';

/** Lines are written in chunks of about this many characters: few writes, and never the whole output in memory. */
const chunkCharacters = 1 << 20;

/**
 * Writes JSONL as its lines are made, to the `--out` file or to stdout, so a 100,000-line output (hundreds of MB,
 * past V8's longest string) is never held whole. The file is written beside its final path and renamed there when
 * every line is written: a failed or interrupted command leaves no half file that looks complete. Returns the
 * absolute path (undefined for stdout) and the number of lines.
 */
export async function writeOutputLines(io: CliIo, out: string | undefined, lines: OutputLines): Promise<{ path: string | undefined; lines: number }> {
  // Ctrl-C or SIGTERM stops the writing after the chunk being written: the partial file is removed, not left behind.
  let stopped = false;
  const stopListening = onStopSignal(() => { stopped = true; });
  try {
    return await writeLines(io, out, lines, () => stopped);
  } finally {
    stopListening();
  }
}

async function writeLines(io: CliIo, out: string | undefined, lines: OutputLines, stopped: () => boolean): Promise<{ path: string | undefined; lines: number }> {
  // A turn of the event loop after each chunk, so a stop signal is seen while a long output is written.
  const checkStop = async (what: string): Promise<void> => {
    await yieldToEventLoop();
    if (stopped()) throw new Interrupted(what);
  };
  if (out === undefined) {
    // Each chunk waits for stdout to take the last: a pipe to a slow reader must not queue the whole output.
    const count = await writeChunks(lines, async (text) => {
      io.stdout(typeof text === 'string' ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8'));
      await io.stdoutDrained?.();
      await checkStop('the output stopped part way; run the command again for all of it');
    });
    return { path: undefined, lines: count };
  }
  // Checked first: the rename at the end would fail only after every line was made.
  const path = checkOutputPath(io.cwd, out);
  const partial = join(dirname(path), `.${basename(path)}.partial-${process.pid}`);
  let descriptor: number;
  try {
    descriptor = openSync(partial, 'w');
  } catch (error) {
    throw cannotWriteOutput(path, error);
  }
  let written = false;
  try {
    const count = await writeChunks(lines, async (text) => {
      try {
        if (typeof text === 'string') writeSync(descriptor, text);
        else for (let offset = 0; offset < text.byteLength;) offset += writeSync(descriptor, text, offset);
      } catch (error) {
        throw cannotWriteOutput(path, error);
      }
      await checkStop(`${out} was not written; run the command again`);
    });
    closeSync(descriptor);
    try {
      renameSync(partial, path);
    } catch (error) {
      throw cannotWriteOutput(path, error);
    }
    written = true;
    return { path, lines: count };
  } finally {
    if (!written) {
      try {
        closeSync(descriptor);
      } catch {
        // Already closed (the rename failed).
      }
      rmSync(partial, { force: true });
    }
  }
}

/** Lines (no newline), or lines already encoded (each with its newline: a generation thread's range). */
type OutputLines = Iterable<string | JsonlBytes> | AsyncIterable<string | JsonlBytes>;

async function writeChunks(lines: OutputLines, write: (text: string | Uint8Array) => void | Promise<void>): Promise<number> {
  let count = 0;
  let chunk: string[] = [];
  let size = 0;
  for await (const line of lines) {
    if (typeof line !== 'string') {
      // In order: the lines gathered before it first.
      if (chunk.length > 0) await write(`${chunk.join('\n')}\n`);
      chunk = [];
      size = 0;
      await write(line.bytes);
      count += line.lines;
      continue;
    }
    chunk.push(line);
    size += line.length + 1;
    count += 1;
    if (size >= chunkCharacters) {
      await write(`${chunk.join('\n')}\n`);
      chunk = [];
      size = 0;
    }
  }
  if (chunk.length > 0) await write(`${chunk.join('\n')}\n`);
  return count;
}

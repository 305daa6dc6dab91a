/**
 * The episode writer thread (see episode-writer.ts): receives batches of episode rows, compresses their transcripts
 * and writes each batch in one transaction through its own store connection, acknowledging each.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ConfigError } from '../core/errors.ts';
import { describeSystemError } from '../core/system-error.ts';
import { transferError } from '../core/transferred-error.ts';
import type { EncodedEpisode, ResultsStore } from '../store/results-store.ts';
import { openResultsStore } from '../store/results-store.ts';
import { compressTranscriptJson } from '../store/transcript-encoding.ts';
import type { EpisodeWriterJob, EpisodeWriterMessage, EpisodeWriterRequest } from './episode-writer.ts';

const job = workerData as EpisodeWriterJob;
const port = parentPort;
const post = (message: EpisodeWriterMessage): void => port?.postMessage(message);
let failed = false;
/** Sent to the run as the typed error it is (a SQLite error as the ConfigError that names its cause and fix). */
const fail = (error: unknown): void => {
  failed = true;
  post({ type: 'error', error: transferError(describeSystemError(error) ?? error) });
};
const store = openStore();

/** The run's database, which must still be there: a file deleted since the run opened it is not made again, empty. */
function openStore(): ResultsStore | undefined {
  try {
    return openResultsStore(job.location, { mustExist: true });
  } catch (error) {
    fail(error instanceof ConfigError && error.code === 'input.unreadable'
      ? new ConfigError('store.invalid', `the results database ${job.location} was deleted or moved while the run was starting, so its episodes cannot be stored`, {
        fix: 'leave the --db file in place while a run writes to it, and start the run again',
      })
      : error);
    return undefined;
  }
}

port?.on('message', (request: EpisodeWriterRequest) => {
  if (request.type === 'close') {
    store?.close();
    post({ type: 'closed' });
    port.close();
    return;
  }
  // After a failure the run stops: later batches are not written (the run's status and resume account for them).
  if (failed || store === undefined) return;
  if (request.type === 'tasks') {
    try {
      store.appendTasks(request.runId, request.rows, request.firstOrdinal);
      if (request.complete) store.completeTasks(request.runId);
    } catch (error) {
      fail(error);
    }
    return;
  }
  try {
    const episodes: EncodedEpisode[] = request.rows.map((row) => {
      // The run's thread left every transcript as JSON text: stored as encodeTranscript would have stored it.
      if (row.messages_encoding === 'json' && typeof row.messages === 'string') {
        const { encoding, data } = compressTranscriptJson(row.messages);
        row.messages = data;
        row.messages_encoding = encoding;
      }
      return { kind: 'encoded-episode', row };
    });
    store.saveEpisodes(episodes);
    post({ type: 'written', count: episodes.length });
  } catch (error) {
    fail(error);
  }
});

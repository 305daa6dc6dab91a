/**
 * The episode writer thread (see episode-writer.ts): receives batches of episode rows, compresses their transcripts
 * and writes each batch in one transaction through its own store connection, acknowledging each.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { transferError } from '../core/transferred-error.ts';
import type { EncodedEpisode } from '../store/results-store.ts';
import { openResultsStore } from '../store/results-store.ts';
import { compressTranscriptJson } from '../store/transcript-encoding.ts';
import type { EpisodeWriterJob, EpisodeWriterMessage, EpisodeWriterRequest } from './episode-writer.ts';

const job = workerData as EpisodeWriterJob;
const port = parentPort;
const post = (message: EpisodeWriterMessage): void => port?.postMessage(message);
const store = openResultsStore(job.location);
let failed = false;

port?.on('message', (request: EpisodeWriterRequest) => {
  if (request.type === 'close') {
    store.close();
    post({ type: 'closed' });
    port.close();
    return;
  }
  // After a failure the run stops: later batches are not written (the run's status and resume account for them).
  if (failed) return;
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
    failed = true;
    post({ type: 'error', error: transferError(error) });
  }
});

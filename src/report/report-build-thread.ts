/**
 * A report thread (see report-threads.ts): builds the reports it is asked for, one at a time, each over a snapshot of
 * the database opened for it (so a file replaced under the viewer is the one read), and posts each back.
 */
import { parentPort } from 'node:worker_threads';
import { transferError } from '../core/transferred-error.ts';
import { buildReport, openReportSnapshot } from './report-jobs.ts';
import type { ReportThreadMessage, ReportThreadRequest } from './report-threads.ts';

const post = (message: ReportThreadMessage): void => parentPort?.postMessage(message);

parentPort?.on('message', ({ location, job }: ReportThreadRequest) => {
  let snapshot: ReturnType<typeof openReportSnapshot>;
  try {
    snapshot = openReportSnapshot(location);
  } catch (error) {
    post({ type: 'failed', opening: true, error: transferError(error) });
    return;
  }
  try {
    post({ type: 'built', report: buildReport(snapshot.store, job) });
  } catch (error) {
    post({ type: 'failed', opening: false, error: transferError(error) });
  } finally {
    snapshot.close();
  }
});

/**
 * Report builds shared by the requests that want the same report, and dropped when none of them is still there: 20
 * clients asking for /report at once get one build, not 20 in a row, and a build whose clients all gave up (closed
 * the tab, timed out) is aborted instead of being finished for nobody.
 */
import type { ServerResponse } from 'node:http';
import type { BuiltReport, ReportJob } from './report-jobs.ts';

export type ReportBuildCounts = {
  /** Builds begun; identical requests while one is in flight join it instead. */
  started: number;
  /** Builds that answered their clients (with the report or with the error it ended in). */
  finished: number;
  /** Builds aborted because every client waiting for them had gone. */
  abandoned: number;
  /** Requests waiting for a build now. */
  waiting: number;
};

/** Builds the report; rejects (AbortError) soon after `signal` aborts. */
export type RunReportBuild = (job: ReportJob, signal: AbortSignal) => Promise<BuiltReport>;

export type SharedReportBuilds = {
  /**
   * The report for `response`'s request, from the build in flight under `key` or a new one; undefined when the
   * request's client has gone (nothing is to be sent).
   */
  serve(key: string, job: ReportJob, response: ServerResponse): Promise<BuiltReport | undefined>;
  counts(): ReportBuildCounts;
};

type Waiter = { resolve(report: BuiltReport | undefined): void; reject(error: unknown): void; stopWatching(): void };
type Build = { waiters: Set<Waiter>; controller: AbortController };

export function shareReportBuilds(runBuild: RunReportBuild): SharedReportBuilds {
  const inFlight = new Map<string, Build>();
  const counts = { started: 0, finished: 0, abandoned: 0 };

  function start(key: string, job: ReportJob): Build {
    const build: Build = { waiters: new Set(), controller: new AbortController() };
    inFlight.set(key, build);
    counts.started += 1;
    const settle = (answer: (waiter: Waiter) => void): void => {
      if (inFlight.get(key) === build) inFlight.delete(key);
      // Abandoned: its clients were let go already.
      if (build.controller.signal.aborted) return;
      counts.finished += 1;
      for (const waiter of build.waiters) {
        waiter.stopWatching();
        answer(waiter);
      }
      build.waiters.clear();
    };
    // Called a microtask later, so a build that throws at once is answered like one that fails later.
    Promise.resolve().then(() => runBuild(job, build.controller.signal)).then(
      (report) => settle((waiter) => waiter.resolve(report)),
      (error: unknown) => settle((waiter) => waiter.reject(error)),
    );
    return build;
  }

  return {
    serve(key, job, response) {
      // The client left before its request was routed: start nothing for it.
      if (response.socket === null || response.socket.destroyed) return Promise.resolve(undefined);
      const build = inFlight.get(key) ?? start(key, job);
      return new Promise<BuiltReport | undefined>((resolve, reject) => {
        // 'close' before the report is sent: the connection ended under the request (the client went away).
        const onClose = (): void => {
          build.waiters.delete(waiter);
          resolve(undefined);
          if (build.waiters.size > 0) return;
          // Nobody waits for it: the next identical request starts afresh rather than joining an aborted build.
          if (inFlight.get(key) === build) inFlight.delete(key);
          counts.abandoned += 1;
          build.controller.abort();
        };
        const waiter: Waiter = { resolve, reject, stopWatching: () => response.off('close', onClose) };
        build.waiters.add(waiter);
        response.once('close', onClose);
      });
    },
    counts: () => ({ ...counts, waiting: [...inFlight.values()].reduce((sum, build) => sum + build.waiters.size, 0) }),
  };
}

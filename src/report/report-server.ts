import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { EpisodeRecord } from '../core/episode.ts';
import { ConfigError, ToolForgeError, errorMessage } from '../core/errors.ts';
import type { EpisodePage, EpisodeQuery } from '../store/episode-query.ts';
import { defaultResultsPath } from '../store/results-store.ts';
import { redactUrlPasswords } from '../core/redact-credentials.ts';
import { shellArgument } from '../core/shell-argument.ts';
import { sweepMembershipOf } from '../runner/sweep-membership.ts';
import { listSuites } from '../suites/registry.ts';
import { DatabaseUnavailableError, followDatabase } from './followed-database.ts';
import { reportJobKey } from './report-jobs.ts';
import type { ReportJob } from './report-jobs.ts';
import { startReportThreads } from './report-threads.ts';
import { shareReportBuilds } from './shared-report-builds.ts';
import type { ReportBuildCounts } from './shared-report-builds.ts';
import { renderCompareList, renderComparePage } from './viewer/compare-page.ts';
import type { TaskPairing } from './viewer/compare-page.ts';
import { taskPairKey } from '../core/task-digest.ts';
import { taskKeysOf } from '../runner/compare-runs.ts';
import { renderRunPage } from './viewer/run-page.ts';
import { renderRunsIndex } from './viewer/runs-index-page.ts';
import { shownRunStatus } from '../runner/run-hold.ts';
import { cannotStoreRestOfTasks, stoppedWithWorkLeft } from '../runner/interrupted-run.ts';
import { renderTaskPage } from './viewer/task-page.ts';
import { runPath } from './viewer/viewer-shell.ts';
import { checkParameters, choiceParameter, episodeFilterParameters, parseEpisodeQuery } from './viewer/viewer-query.ts';

export type ReportServer = {
  url: string;
  close(): Promise<void>;
  /** The full-report builds so far (report-jobs.ts): how many began, answered, were abandoned, and the requests waiting. */
  reportBuilds(): ReportBuildCounts;
};

export type ReportServerOptions = {
  /** A SQLite file (followed by path: a file replaced under the viewer is read again) or a PostgreSQL URL. */
  dbPath: string;
  port?: number;
  /** Awaited before each full-report build begins (what a test holds builds with); `signal` aborts if it is abandoned. */
  beforeBuild?: (job: ReportJob, signal: AbortSignal) => Promise<void>;
};

/**
 * A local viewer of a results database, read on every request so a run in progress shows its latest
 * episodes (SQLite WAL lets this reader run beside the writer). Pages read SQL aggregates and one page
 * of episodes at a time, never every transcript:
 *   GET /                           every run: counts, pass rate, model; sortable (?sort=&order=)
 *   GET /runs/<id>                  one run: failures, filters, a page of episodes (see viewer-query.ts)
 *   GET /runs/<id>/difficulty       accuracy along the axes the run's tasks vary on (levels link to the knob filter)
 *   GET /sweeps/<group>             one sweep's runs and its difficulty charts (as report --sweep <group>)
 *   GET /runs/<id>/tasks/<task>     every trial of a task beside the gold; prev/next, failed-only
 *   GET /compare?a=<run>&b=<run>    the tasks two runs share whose results differ (&only=all: every one)
 *   GET /compare?a=&b=&task=<id>    one task from two runs side by side
 *   GET /report, /runs/<id>/report  the full static HTML report (every run, or one)
 *   GET /api/runs                   every run's summary, tables and task results (JSON)
 *   GET /api/runs/<id>              one run (JSON)
 *   GET /api/runs/<id>/episodes     a page of episodes with transcripts: {total, offset, limit, episodes}
 *                                   (?status= ?outcome= ?failure= ?task= ?search= ?knob.<name>= ?limit= ?offset=
 *                                   ?transcripts=0 to leave transcripts out)
 * The pages that read every episode (the reports, /api/runs, difficulty and sweep pages) are built in a worker thread
 * over one snapshot of the database (report-threads.ts), so the other pages are served meanwhile and a run deleted
 * mid-build is reported as it was; identical requests share a build, and a build nobody waits for is stopped
 * (shared-report-builds.ts). A database that is gone is a 503 with a JSON error naming the fix.
 * Listens on 127.0.0.1 only: results hold prompts and model outputs.
 */
export async function startReportServer(options: ReportServerOptions): Promise<ReportServer> {
  const database = followDatabase(options.dbPath);
  // Set from `database` as each request comes in: the file at the path then.
  let { store, generation } = database.current();
  const threads = startReportThreads(options.dbPath);
  const builds = shareReportBuilds(async (job, signal) => {
    await options.beforeBuild?.(job, signal);
    return threads.build(job, signal);
  });
  // Commands the pages show to paste name this database unless it is the default one in the current folder.
  const databaseFlag = resolve(options.dbPath) === resolve(defaultResultsPath) ? '' : ` --db ${shellArgument(redactUrlPasswords(options.dbPath))}`;
  const server = createServer((request, response) => {
    let job: ReportJob | void;
    try {
      ({ store, generation } = database.current());
      job = route(request, response);
    } catch (error) {
      return sendError(response, error);
    }
    if (!job) return;
    // A build of the file that was at the path before it was replaced is not this request's report.
    builds.serve(`${generation}\n${reportJobKey(job)}`, job, response).then((report) => {
      if (report !== undefined) send(response, 200, report.contentType, report.body);
    }, (error: unknown) => sendError(response, error));
  });

  /** Answers the page itself, or returns the full report to build for it (report-jobs.ts). */
  function route(request: IncomingMessage, response: ServerResponse): ReportJob | void {
    if (request.method !== 'GET') return send(response, 405, 'text/plain; charset=utf-8', 'only GET\n');
    // A path that starts with '//' would parse as a host ('//runs' -> http://runs/): extra slashes are dropped.
    const url = new URL((request.url ?? '/').replace(/^\/+/, '/'), 'http://localhost');
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return send(response, 400, 'text/plain; charset=utf-8', `the path ${url.pathname} is not valid percent-encoding\n`);
    }
    const html = (body: string) => send(response, 200, 'text/html; charset=utf-8', body);
    // Pages that read no parameter refuse any, as the others refuse the ones they do not read.
    const none = () => checkParameters(url.searchParams, path, []);
    const filters = () => checkParameters(url.searchParams, path, episodeFilterParameters, { knobs: true });
    if (path === '/') return html(renderRunsIndex(store.listRuns().map((run) => ({ run, counts: store.countOutcomes(run.id), status: shownRunStatus(store, run) })), url.searchParams));
    if (path === '/report') {
      none();
      return { kind: 'all-runs-html' };
    }
    if (path === '/compare') return html(comparePage(url.searchParams));
    if (path === '/api/runs') {
      none();
      return { kind: 'all-runs-json' };
    }
    const episodes = /^\/api\/runs\/([^/]+)\/episodes$/.exec(path);
    if (episodes) {
      checkParameters(url.searchParams, path, [...episodeFilterParameters, 'transcripts'], { knobs: true });
      return send(response, 200, 'application/json', `${JSON.stringify(episodePage(episodes[1], url.searchParams), null, 2)}\n`);
    }
    // An unknown run is a 404 at once, without a build.
    const apiRun = /^\/api\/runs\/([^/]+)$/.exec(path);
    if (apiRun) {
      none();
      return { kind: 'run-json', runId: store.getRun(apiRun[1]).id };
    }
    const fullRun = /^\/runs\/([^/]+)\/report$/.exec(path);
    if (fullRun) {
      none();
      return { kind: 'run-html', runId: store.getRun(fullRun[1]).id };
    }
    const htmlRun = /^\/runs\/([^/]+)$/.exec(path);
    if (htmlRun) {
      const run = store.getRun(htmlRun[1]);
      filters();
      const query = checkKnobFilters(run.id, parseEpisodeQuery(url.searchParams));
      const sweepOfRun = sweepMembershipOf(run.params);
      const axes = listSuites().find((suite) => suite.id === run.suite.id)?.difficultyAxes ?? [];
      const counts = store.countOutcomes(run.id);
      const status = shownRunStatus(store, run);
      return html(renderRunPage(run, counts, query, store.queryEpisodes(run.id, query), {
        difficultyAxes: axes.map((axis) => axis.name), ...(sweepOfRun ? { sweep: sweepOfRun } : {}), status, databaseFlag, tasksLost: cannotStoreRestOfTasks(store, run),
        ...(stoppedWithWorkLeft(store, run, status, counts.scored) ? { stopped: status } : {}),
      }));
    }
    const runDifficulty = /^\/runs\/([^/]+)\/difficulty$/.exec(path);
    if (runDifficulty) {
      none();
      return { kind: 'run-difficulty-html', runId: store.getRun(runDifficulty[1]).id };
    }
    const sweep = /^\/sweeps\/([^/]+)$/.exec(path);
    if (sweep) {
      none();
      if (!store.listRuns().some((run) => sweepMembershipOf(run.params)?.group === sweep[1])) {
        return send(response, 404, 'text/plain; charset=utf-8', `no run belongs to sweep '${sweep[1]}'; the runs page lists the sweeps\n`);
      }
      return { kind: 'sweep-html', group: sweep[1], databaseFlag };
    }
    // Task ids hold slashes (funcgen/0/3): the rest of the path is the id.
    const task = /^\/runs\/([^/]+)\/tasks\/(.+)$/.exec(path);
    if (task) {
      const run = store.getRun(task[1]);
      const taskId = task[2];
      const storedTask = store.findTask(run.id, taskId);
      const taskEpisodes = store.listTaskEpisodes(run.id, taskId);
      if (storedTask === undefined && taskEpisodes.length === 0) {
        return send(response, 404, 'text/plain; charset=utf-8', `no task '${taskId}' in run ${run.id}; its page lists the tasks (${runPath(run.id)})\n`);
      }
      filters();
      const query = checkKnobFilters(run.id, parseEpisodeQuery(url.searchParams));
      const otherRuns = store.listRuns().filter((other) => other.id !== run.id && store.findTask(other.id, taskId) !== undefined);
      return html(renderTaskPage(run, taskId, storedTask, taskEpisodes, {
        query,
        matching: store.listMatchingTaskIds(run.id, query),
        failed: store.listMatchingTaskIds(run.id, { outcome: 'failed' }),
        otherRuns,
      }));
    }
    send(response, 404, 'text/plain; charset=utf-8', `no page ${path}; try / or /api/runs\n`);
  }

  function episodePage(runId: string, parameters: URLSearchParams): EpisodePage | (Omit<EpisodePage, 'episodes'> & { episodes: EpisodeRecord[] }) {
    store.getRun(runId);
    const page = store.queryEpisodes(runId, checkKnobFilters(runId, parseEpisodeQuery(parameters)));
    if (choiceParameter(parameters, 'transcripts', ['0', '1'] as const, '1') === '0') return page;
    return {
      ...page,
      episodes: page.episodes.map((outcome) => store.findEpisode(runId, outcome.taskId, outcome.trial) ?? { ...outcome, messages: [] }),
    };
  }

  function comparePage(parameters: URLSearchParams): string {
    checkParameters(parameters, '/compare', ['a', 'b', 'task', 'only']);
    const only = choiceParameter(parameters, 'only', ['differ', 'all'] as const, 'differ');
    const [a, b] = ['a', 'b'].map((name) => {
      const runId = parameters.get(name);
      if (!runId) throw new ConfigError('input.invalid', `/compare needs ?a=<run>&b=<run>, ${name} is missing`, { fix: 'pick two runs on the runs page' });
      return store.getRun(runId);
    });
    const pairing = pairTasks(a.id, b.id);
    const taskId = parameters.get('task');
    if (taskId) {
      const taskIdB = pairing.pairs.get(taskId);
      if (taskIdB === undefined) {
        throw new ConfigError('input.invalid', `task '${taskId}' of run ${a.id} is not a task of run ${b.id}${store.findTask(b.id, taskId) ? ' (that run has a different task under this id: other knobs or seeds)' : ''}`, {
          fix: `pick a task the two runs share: /compare?a=${a.id}&b=${b.id} lists them`,
        });
      }
      return renderComparePage(a, b, taskId, taskIdB, store.findTask(a.id, taskId),
        store.listTaskEpisodes(a.id, taskId), store.listTaskEpisodes(b.id, taskIdB));
    }
    return renderCompareList(a, b, store.listEpisodeOutcomes(a.id), store.listEpisodeOutcomes(b.id), only, pairing);
  }

  /**
   * Knob filters name knobs the run's tasks have, with values of their type: `?knob.nope=1` or `?knob.core=abc` would
   * match nothing and look like an empty result.
   */
  function checkKnobFilters(runId: string, query: EpisodeQuery): EpisodeQuery {
    const names = Object.keys(query.knobs ?? {});
    if (names.length === 0) return query;
    const first = store.iterateTaskParamsAndStats(runId)[Symbol.iterator]().next();
    const params = first.done ? {} : first.value.params;
    const taken = Object.keys(params).filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && (params[name] === null || typeof params[name] !== 'object'));
    for (const name of names) {
      if (!taken.includes(name)) {
        throw new ConfigError('input.invalid', `the tasks of run ${runId} have no knob '${name}'`, { fix: taken.length === 0 ? 'drop the knob filter' : `filter on one of: ${taken.map((knob) => `knob.${knob}`).join(', ')}` });
      }
      const text = query.knobs![name];
      const sample = params[name];
      const fits = typeof sample === 'number' ? text.trim() !== '' && Number.isFinite(Number(text)) : typeof sample === 'boolean' ? text === 'true' || text === 'false' : true;
      if (!fits) {
        throw new ConfigError('input.invalid', `knob.${name} must be ${typeof sample === 'number' ? 'a number' : 'true or false'}, got '${text}'`, { fix: `pass ?knob.${name}=${String(sample)}` });
      }
    }
    return query;
  }

  /** The tasks two runs share, paired as reports pair them (taskPairKey): by content, not by id alone. */
  function pairTasks(runA: string, runB: string): TaskPairing {
    const keysA = taskKeysOf(store, runA, taskPairKey);
    const keysB = taskKeysOf(store, runB, taskPairKey);
    const idInB = new Map([...keysB].map(([id, key]) => [key, id]));
    const pairs = new Map<string, string>();
    let sameIdOtherTask = 0;
    for (const [id, key] of keysA) {
      const other = idInB.get(key);
      if (other !== undefined) pairs.set(id, other);
      else if (keysB.has(id)) sameIdOtherTask += 1;
    }
    return { pairs, sameIdOtherTask };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve, reject) => {
      // Closing the connections lets every waiting request go, which abandons the builds in flight.
      server.closeAllConnections();
      server.close((error) => {
        database.close();
        threads.close().then(() => (error ? reject(error) : resolve()), reject);
      });
    }),
    reportBuilds: () => builds.counts(),
  };
}

function sendError(response: ServerResponse, error: unknown): void {
  if (error instanceof DatabaseUnavailableError) {
    // Every page, HTML or not, answers the same way: a script polling the viewer reads the code, a person the fix.
    const body = { error: { code: error.code, message: error.problem, ...(error.fix === undefined ? {} : { fix: error.fix }) } };
    return send(response, 503, 'application/json', `${JSON.stringify(body, null, 2)}\n`);
  }
  const status = error instanceof ToolForgeError ? (error.code === 'store.unknown-run' ? 404 : error.code === 'input.invalid' ? 400 : 500) : 500;
  send(response, status, 'text/plain; charset=utf-8', `${errorMessage(error)}\n`);
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  // nosniff: an error page that repeats the requested path stays text, whatever the path holds.
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  response.end(body);
}

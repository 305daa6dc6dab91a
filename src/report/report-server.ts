import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { EpisodeRecord } from '../core/episode.ts';
import { ConfigError, ToolForgeError, errorMessage } from '../core/errors.ts';
import type { EpisodePage, EpisodeQuery } from '../store/episode-query.ts';
import { defaultResultsPath, openResultsStore } from '../store/results-store.ts';
import { redactUrlPasswords } from '../core/redact-credentials.ts';
import { shellArgument } from '../core/shell-argument.ts';
import { sweepMembershipOf } from '../runner/sweep-membership.ts';
import { listSuites } from '../suites/registry.ts';
import type { StoredRun } from '../store/stored-run.ts';
import { difficultyCurves } from './difficulty-curves.ts';
import { loadRunReport, loadTaskLevels } from './load-run-report.ts';
import { renderHtml } from './render-html.ts';
import { renderJson } from './render-json.ts';
import { storedReportEpisodes } from './report-episodes.ts';
import { compareWithFirstRuns } from './run-comparisons.ts';
import { renderCompareList, renderComparePage } from './viewer/compare-page.ts';
import type { TaskPairing } from './viewer/compare-page.ts';
import { taskPairKey } from '../core/task-digest.ts';
import { taskKeysOf } from '../runner/compare-runs.ts';
import { renderRunDifficultyPage } from './viewer/difficulty-section.ts';
import { renderRunPage } from './viewer/run-page.ts';
import { renderRunsIndex } from './viewer/runs-index-page.ts';
import { shownRunStatus } from '../runner/run-hold.ts';
import { renderSweepPage } from './viewer/sweep-page.ts';
import { renderTaskPage } from './viewer/task-page.ts';
import { runPath } from './viewer/viewer-shell.ts';
import { supersededNote, withoutSupersededRuns } from './superseded-runs.ts';
import { checkParameters, choiceParameter, episodeFilterParameters, parseEpisodeQuery } from './viewer/viewer-query.ts';

export type ReportServer = { url: string; close(): Promise<void> };

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
 * Listens on 127.0.0.1 only: results hold prompts and model outputs.
 */
export async function startReportServer(options: { dbPath: string; port?: number }): Promise<ReportServer> {
  const store = openResultsStore(options.dbPath, { readOnly: true });
  // Commands the pages show to paste name this database unless it is the default one in the current folder.
  const databaseFlag = resolve(options.dbPath) === resolve(defaultResultsPath) ? '' : ` --db ${shellArgument(redactUrlPasswords(options.dbPath))}`;
  const server = createServer((request, response) => {
    try {
      route(request, response);
    } catch (error) {
      const status = error instanceof ToolForgeError ? (error.code === 'store.unknown-run' ? 404 : error.code === 'input.invalid' ? 400 : 500) : 500;
      send(response, status, 'text/plain; charset=utf-8', `${errorMessage(error)}\n`);
    }
  });

  function route(request: IncomingMessage, response: ServerResponse): void {
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
    const allRunIds = (): string[] => store.listRuns().map((run) => run.id).reverse();
    if (path === '/') return html(renderRunsIndex(store.listRuns().map((run) => ({ run, counts: store.countOutcomes(run.id), status: shownRunStatus(store, run) })), url.searchParams));
    if (path === '/report') {
      none();
      const group = withoutSupersededRuns(store.listRuns().reverse());
      const runIds = group.runs.map((run) => run.id);
      const note = supersededNote(group.superseded);
      return html(renderHtml(runIds.map((id) => loadRunReport(store, id)), { linkTasks: true, comparisons: compareWithFirstRuns(store, runIds), notes: note === undefined ? [] : [note] }));
    }
    if (path === '/compare') return html(comparePage(url.searchParams));
    if (path === '/api/runs') {
      none();
      return send(response, 200, 'application/json', renderJson(allRunIds().map((id) => loadRunReport(store, id)), { single: false }));
    }
    const episodes = /^\/api\/runs\/([^/]+)\/episodes$/.exec(path);
    if (episodes) {
      checkParameters(url.searchParams, path, [...episodeFilterParameters, 'transcripts'], { knobs: true });
      return send(response, 200, 'application/json', `${JSON.stringify(episodePage(episodes[1], url.searchParams), null, 2)}\n`);
    }
    const apiRun = /^\/api\/runs\/([^/]+)$/.exec(path);
    if (apiRun) {
      none();
      return send(response, 200, 'application/json', renderJson([loadRunReport(store, apiRun[1])], { single: true }));
    }
    const fullRun = /^\/runs\/([^/]+)\/report$/.exec(path);
    if (fullRun) {
      none();
      return html(renderHtml([loadRunReport(store, fullRun[1])], { title: `ToolForge run ${fullRun[1]}`, linkTasks: true }));
    }
    const htmlRun = /^\/runs\/([^/]+)$/.exec(path);
    if (htmlRun) {
      const run = store.getRun(htmlRun[1]);
      filters();
      const query = checkKnobFilters(run.id, parseEpisodeQuery(url.searchParams));
      const sweepOfRun = sweepMembershipOf(run.params);
      const axes = listSuites().find((suite) => suite.id === run.suite.id)?.difficultyAxes ?? [];
      return html(renderRunPage(run, store.countOutcomes(run.id), query, store.queryEpisodes(run.id, query), {
        difficultyAxes: axes.map((axis) => axis.name), ...(sweepOfRun ? { sweep: sweepOfRun } : {}), status: shownRunStatus(store, run), databaseFlag,
      }));
    }
    const runDifficulty = /^\/runs\/([^/]+)\/difficulty$/.exec(path);
    if (runDifficulty) {
      none();
      return html(runDifficultyPage(store.getRun(runDifficulty[1])));
    }
    const sweep = /^\/sweeps\/([^/]+)$/.exec(path);
    if (sweep) {
      none();
      const members = store.listRuns().filter((run) => sweepMembershipOf(run.params)?.group === sweep[1]).reverse();
      if (members.length === 0) return send(response, 404, 'text/plain; charset=utf-8', `no run belongs to sweep '${sweep[1]}'; the runs page lists the sweeps\n`);
      const group = withoutSupersededRuns(members);
      const reports = group.runs.map((run) => loadRunReport(store, run.id));
      return html(renderSweepPage(sweep[1], reports, difficultyCurves(reports), supersededNote(group.superseded)));
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

  /** A run's own difficulty curves (axes its tasks vary on) from its tasks and episode outcomes, never transcripts. */
  function runDifficultyPage(run: StoredRun): string {
    const sweepOfRun = sweepMembershipOf(run.params);
    const { axes, taskLevels, knobAxes } = loadTaskLevels(store, run.id, run.suite.id);
    const curves = axes.length === 0 ? [] : difficultyCurves([{
      summary: { suite: run.suite.id, model: run.model, mode: run.mode ?? 'default' },
      episodes: storedReportEpisodes(store, run.id), difficultyAxes: axes, taskLevels,
    }]);
    return renderRunDifficultyPage(run, curves, knobAxes, sweepOfRun);
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
      server.closeAllConnections();
      server.close((error) => {
        store.close();
        if (error) reject(error);
        else resolve();
      });
    }),
  };
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  // nosniff: an error page that repeats the requested path stays text, whatever the path holds.
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  response.end(body);
}

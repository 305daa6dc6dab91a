import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolForgeError, errorMessage } from '../core/errors.ts';
import { openResultsStore } from '../store/results-store.ts';
import { loadRunReport } from './load-run-report.ts';
import { renderHtml } from './render-html.ts';
import { renderJson } from './render-json.ts';
import { renderTaskTranscripts } from './render-transcripts.ts';
import { compareWithFirstRuns } from './run-comparisons.ts';

export type ReportServer = { url: string; close(): Promise<void> };

/**
 * A local viewer: the HTML report of a results database, rebuilt on every request so a run in
 * progress shows its latest episodes (SQLite WAL lets this reader run beside the writer).
 *   GET /                        every run (HTML)
 *   GET /runs/<id>               one run (HTML)
 *   GET /runs/<id>/tasks/<task>  every trial of one task: judgement and transcript (HTML)
 *   GET /api/runs                every run's summary, tables and task results (JSON)
 *   GET /api/runs/<id>           one run (JSON)
 *   GET /api/runs/<id>/episodes  its episodes with transcripts (JSON)
 * Listens on 127.0.0.1 only: results hold prompts and model outputs.
 */
export async function startReportServer(options: { dbPath: string; port?: number }): Promise<ReportServer> {
  const store = openResultsStore(options.dbPath, { readOnly: true });
  const server = createServer((request, response) => {
    try {
      route(request, response);
    } catch (error) {
      const isUnknownRun = error instanceof ToolForgeError && error.code === 'store.unknown-run';
      send(response, isUnknownRun ? 404 : 500, 'text/plain; charset=utf-8', `${errorMessage(error)}\n`);
    }
  });

  function route(request: IncomingMessage, response: ServerResponse): void {
    if (request.method !== 'GET') return send(response, 405, 'text/plain; charset=utf-8', 'only GET\n');
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    const allRunIds = (): string[] => store.listRuns().map((run) => run.id).reverse();
    if (path === '/') {
      const runIds = allRunIds();
      const reports = runIds.map((id) => loadRunReport(store, id));
      return send(response, 200, 'text/html; charset=utf-8', renderHtml(reports, { linkTasks: true, comparisons: compareWithFirstRuns(store, runIds) }));
    }
    if (path === '/api/runs') return send(response, 200, 'application/json', renderJson(allRunIds().map((id) => loadRunReport(store, id)), { single: false }));
    const episodes = /^\/api\/runs\/([^/]+)\/episodes$/.exec(path);
    if (episodes) {
      store.getRun(episodes[1]);
      return send(response, 200, 'application/json', `${JSON.stringify(store.listEpisodes(episodes[1]), null, 2)}\n`);
    }
    const apiRun = /^\/api\/runs\/([^/]+)$/.exec(path);
    if (apiRun) return send(response, 200, 'application/json', renderJson([loadRunReport(store, apiRun[1])], { single: true }));
    const htmlRun = /^\/runs\/([^/]+)$/.exec(path);
    if (htmlRun) return send(response, 200, 'text/html; charset=utf-8', renderHtml([loadRunReport(store, htmlRun[1])], { title: `ToolForge run ${htmlRun[1]}`, linkTasks: true }));
    // Task ids hold slashes (funcgen/0/3): the rest of the path is the id.
    const task = /^\/runs\/([^/]+)\/tasks\/(.+)$/.exec(path);
    if (task) {
      store.getRun(task[1]);
      return send(response, 200, 'text/html; charset=utf-8', renderTaskTranscripts(task[1], task[2], store.listEpisodes(task[1])));
    }
    send(response, 404, 'text/plain; charset=utf-8', `no page ${path}; try / or /api/runs\n`);
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
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  response.end(body);
}

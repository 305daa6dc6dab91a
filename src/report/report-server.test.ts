import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateTasks } from '../runner/generate-tasks.ts';
import { runEvaluation } from '../runner/run-evaluation.ts';
import { resolveKnobs } from '../suites/knob.ts';
import { getSuite } from '../suites/registry.ts';
import type { ReportServer } from './report-server.ts';
import { startReportServer } from './report-server.ts';

let server: ReportServer;
let runId = '';

before(async () => {
  const dbPath = join(mkdtempSync(join(tmpdir(), 'toolforge-view-')), 'results.db');
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, {});
  const tasks = await generateTasks(suite, { seed: 2, count: 2, params });
  runId = (await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', seed: 2, params, dbPath })).runId;
  server = await startReportServer({ dbPath });
});
after(async () => { await server.close(); });

test('serves the HTML report of every run and of one run', async () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const all = await fetch(server.url);
  assert.equal(all.status, 200);
  assert.match(all.headers.get('content-type') ?? '', /text\/html/);
  const html = await all.text();
  assert.match(html, /<svg/);
  assert.ok(html.includes(runId));
  const one = await fetch(new URL(`runs/${runId}`, server.url));
  assert.match(await one.text(), new RegExp(`<title>ToolForge run ${runId}</title>`));
});

test('links each task to a page with every trial\'s judgement and transcript', async () => {
  const html = await (await fetch(new URL(`runs/${runId}`, server.url))).text();
  const link = /<a href="(\/runs\/[^"]+\/tasks\/[^"]+)">(funcgen\/2\/0)<\/a>/.exec(html);
  assert.ok(link, 'the per-task table links the task');
  const page = await fetch(new URL(link[1], server.url));
  assert.equal(page.status, 200);
  const transcript = await page.text();
  assert.match(transcript, /<h1>Task funcgen\/2\/0<\/h1>/);
  assert.match(transcript, /<h2>Trial 0<\/h2>\n<p><b>passed<\/b>, score 1/);
  assert.match(transcript, /<div class="message user"><b>user<\/b><pre>/);
  assert.match(transcript, /<pre class="call">\w+\(\{/, 'tool calls with their argument text');
  assert.match(transcript, /<div class="message tool ok"><b>tool \w+<\/b>/);
});

test('serves JSON summaries and episodes', async () => {
  const runs = await (await fetch(new URL('api/runs', server.url))).json() as { runId: string; passRate: number }[];
  assert.deepEqual(runs.map((run) => [run.runId, run.passRate]), [[runId, 1]]);
  const run = await (await fetch(new URL(`api/runs/${runId}`, server.url))).json() as { runId: string; taskResults: unknown[] };
  assert.equal(run.taskResults.length, 2);
  const episodes = await (await fetch(new URL(`api/runs/${runId}/episodes`, server.url))).json() as { taskId: string; messages: unknown[] }[];
  assert.equal(episodes.length, 2);
  assert.ok(episodes.every((episode) => episode.messages.length > 0), 'transcripts included');
});

test('unknown runs and paths are 404, other methods 405', async () => {
  const unknownRun = await fetch(new URL('api/runs/no-such-run', server.url));
  assert.equal(unknownRun.status, 404);
  assert.match(await unknownRun.text(), /no run 'no-such-run'/);
  assert.equal((await fetch(new URL('elsewhere', server.url))).status, 404);
  assert.equal((await fetch(server.url, { method: 'POST' })).status, 405);
});

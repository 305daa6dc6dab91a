import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import type { ReportServer } from '../../src/report/report-server.ts';
import { startReportServer } from '../../src/report/report-server.ts';

let server: ReportServer;
let runId = '';
let randomRunId = '';
let knobs: Record<string, unknown> = {};
let databasePath = '';

before(async () => {
  const dbPath = join(mkdtempSync(join(tmpdir(), 'toolforge-view-')), 'results.db');
  databasePath = dbPath;
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, {});
  knobs = params;
  const tasks = await generateTasks(suite, { seed: 2, count: 6, params });
  runId = (await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', seed: 2, params, dbPath })).runId;
  randomRunId = (await runEvaluation({ suite, tasks, modelRef: 'builtin/random', seed: 2, params, dbPath })).runId;
  server = await startReportServer({ dbPath });
});
after(async () => { await server.close(); });

const get = async (path: string) => {
  const response = await fetch(new URL(path, server.url));
  return { status: response.status, text: await response.text() };
};

test('the index lists every run with its model, link and pass rate, sorted numerically on request', async () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const index = await get('/');
  assert.equal(index.status, 200);
  assert.ok(index.text.includes(`<a href="/runs/${runId}">${runId}</a>`));
  assert.match(index.text, /<td>builtin\/oracle<\/td>/);
  assert.match(index.text, /<td>builtin\/random<\/td>/);
  assert.match(index.text, /<td class="number">100\.0%<\/td>/);
  const ascending = (await get('/?sort=passRate&order=asc')).text;
  const descending = (await get('/?sort=passRate&order=desc')).text;
  assert.ok(ascending.indexOf(randomRunId) < ascending.indexOf(`>${runId}<`), 'random (lower pass rate) first when ascending');
  assert.ok(descending.indexOf(`>${runId}<`) < descending.indexOf(randomRunId), 'oracle first when descending');
});

test('a run page filters by result, failure code, knob, task glob and text, and pages', async () => {
  const all = (await get(`/runs/${randomRunId}`)).text;
  assert.match(all, new RegExp(`<title>ToolForge run ${randomRunId}</title>`));
  assert.match(all, /episodes 1–6 of 6/);
  const failedOnly = (await get(`/runs/${randomRunId}?outcome=failed`)).text;
  const failedRows = failedOnly.match(/<tr class="failed">/g)?.length ?? 0;
  assert.ok(failedRows > 0, 'random fails some funcgen tasks');
  assert.equal(failedOnly.match(/<tr class="passed">/g), null);
  const code = /<option>([a-z]+\.[a-z.-]+)<\/option>/.exec(failedOnly)?.[1] ?? '';
  const byCode = (await get(`/runs/${randomRunId}?failure=${code}`)).text;
  assert.ok((byCode.match(/<tr class="failed">/g)?.length ?? 0) > 0);
  assert.equal((await get(`/runs/${runId}?outcome=failed`)).text.match(/<tr class="/g), null, 'the oracle has no failure');
  assert.match((await get(`/runs/${runId}?task=funcgen/2/3`)).text, /episodes 1–1 of 1/);
  assert.match((await get(`/runs/${runId}?task=funcgen/2/*&limit=2&offset=2`)).text, /rel="prev"[^]*episodes 3–4 of 6[^]*rel="next"/);
  assert.match((await get(`/runs/${runId}?search=FUNCGEN/2/5`)).text, /episodes 1–1 of 1/);
  assert.match((await get(`/runs/${runId}?knob.core=${String(knobs.core)}`)).text, /episodes 1–6 of 6/);
  assert.match((await get(`/runs/${runId}?knob.core=999`)).text, /episodes 0–0 of 0/);
  assert.equal((await get(`/runs/${runId}?limit=0`)).status, 400);
  assert.equal((await get(`/runs/${runId}?knob.no%20such=1`)).status, 400);
  // Every bad limit or offset gets the same rule and fix, a count past what SQLite holds included (it was a 500).
  for (const limit of ['0', '-1', 'abc', '99999999999999999999']) assert.match((await get(`/runs/${runId}?limit=${limit}`)).text, /limit must be an integer from 1 to 1000/, limit);
  for (const path of [`/runs/${runId}?offset=99999999999999999999`, `/runs/${runId}?offset=9223372036854775807`, `/api/runs/${runId}/episodes?offset=9223372036854775807`]) {
    const response = await get(path);
    assert.equal(response.status, 400, path);
    assert.match(response.text, /offset must be a whole number from 0 to 9007199254740991/, path);
  }
});

test('a task page shows the gold beside every trial, highlights the failing call, and navigates', async () => {
  const list = (await get(`/runs/${randomRunId}?outcome=failed`)).text;
  const link = /<a href="(\/runs\/[^"]+\/tasks\/[^"#]+)[^"]*">(funcgen\/2\/\d)<\/a>/.exec(list);
  assert.ok(link, 'the episode table links the task');
  const page = (await get(link[1])).text;
  assert.ok(page.includes(`<h1>Task ${link[2]}</h1>`));
  assert.match(page, /<h3>Gold \(task\.expected\)<\/h3>/);
  assert.match(page, /Gold solution \(call order\)/);
  assert.match(page, /<b class="verdict-failed">failed<\/b>/);
  assert.match(page, /data-failing="(call|answer)"/, 'the failing call or answer is marked');
  assert.match(page, /rel="next-failed"|rel="prev-failed"|<span class="disabled">← previous failed/);
  assert.ok(page.includes(`<option value="${runId}">`), 'offers the other run that holds this task');
  const oracleTask = (await get(`/runs/${runId}/tasks/funcgen/2/0`)).text;
  assert.match(oracleTask, /<div class="message user"><b>user<\/b><pre>/);
  assert.match(oracleTask, /<pre class="call">\w+\(\{/, 'tool calls with their argument text');
  assert.match(oracleTask, /<div class="message tool ok"><b>tool \w+<\/b>/);
  assert.doesNotMatch(oracleTask, /data-failing/);
  assert.match(oracleTask, /<a href="\/runs\/[^"]+\/tasks\/funcgen\/2\/1" rel="next">/);
});

test('two runs side by side: the differing tasks, then one task from each', async () => {
  const list = (await get(`/compare?a=${runId}&b=${randomRunId}`)).text;
  const link = /<a href="(\/compare\?[^"]+task=[^"]+)">(funcgen\/2\/\d)<\/a>/.exec(list);
  assert.ok(link, 'a differing task is listed');
  const side = (await get(link[1].replaceAll('&amp;', '&'))).text;
  assert.match(side, /<div class="columns" id="side-by-side"><div class="side">/);
  assert.ok(side.includes('builtin/oracle') && side.includes('builtin/random'));
  assert.equal((await get('/compare?a=' + runId)).status, 400);
});

test('the static report is still served in full, and the old task link form works', async () => {
  const report = (await get('/report')).text;
  assert.match(report, /<svg/);
  const runReport = (await get(`/runs/${runId}/report`)).text;
  const link = /<a href="(\/runs\/[^"]+\/tasks\/[^"]+)">(funcgen\/2\/0)<\/a>/.exec(runReport);
  assert.ok(link);
  assert.equal((await get(link[1])).status, 200);
});

test('serves JSON summaries and a page of episodes honouring the filters', async () => {
  const runs = await (await fetch(new URL('api/runs', server.url))).json() as { runId: string; passRate: number }[];
  assert.deepEqual(runs.map((run) => run.runId), [runId, randomRunId]);
  const run = await (await fetch(new URL(`api/runs/${runId}`, server.url))).json() as { runId: string; taskResults: unknown[] };
  assert.equal(run.taskResults.length, 6);
  type Page = { total: number; offset: number; limit: number; episodes: { taskId: string; messages?: unknown[]; score: { passed: boolean } }[] };
  const page = await (await fetch(new URL(`api/runs/${runId}/episodes?limit=2&offset=1`, server.url))).json() as Page;
  assert.deepEqual([page.total, page.offset, page.limit, page.episodes.map((episode) => episode.taskId)], [6, 1, 2, ['funcgen/2/1', 'funcgen/2/2']]);
  assert.ok(page.episodes.every((episode) => (episode.messages?.length ?? 0) > 0), 'transcripts included');
  const failed = await (await fetch(new URL(`api/runs/${randomRunId}/episodes?outcome=failed&transcripts=0`, server.url))).json() as Page;
  assert.ok(failed.total > 0 && failed.episodes.every((episode) => !episode.score.passed && episode.messages === undefined));
  const none = await (await fetch(new URL(`api/runs/${runId}/episodes?status=infrastructure-error`, server.url))).json() as Page;
  assert.equal(none.total, 0);
});

test('unknown runs and paths are 404, bad filters 400, other methods 405', async () => {
  const unknownRun = await fetch(new URL('api/runs/no-such-run', server.url));
  assert.equal(unknownRun.status, 404);
  assert.match(await unknownRun.text(), /no run 'no-such-run'/);
  assert.equal((await fetch(new URL('elsewhere', server.url))).status, 404);
  assert.equal((await fetch(new URL(`api/runs/${runId}/episodes?status=nope`, server.url))).status, 400);
  assert.equal((await fetch(server.url, { method: 'POST' })).status, 405);
  // A task the run does not hold is not a page (before: 200 with an empty page); a path that is not valid
  // percent-encoding is the request's fault (before: 500).
  const unknownTask = await fetch(new URL(`runs/${runId}/tasks/funcgen/9/9`, server.url));
  assert.equal(unknownTask.status, 404);
  assert.match(await unknownTask.text(), new RegExp(`no task 'funcgen/9/9' in run ${runId}`));
  assert.equal((await fetch(new URL(`runs/${runId}/tasks/funcgen/2/0`, server.url))).status, 200);
  // Doubled slashes (a base URL ending in '/' joined with '/...') are the same page; they were a 500 "Invalid URL".
  assert.equal((await fetch(`${server.url}/`)).status, 200);
  assert.equal((await fetch(`${server.url}//api/runs/${runId}`)).status, 200);
  const malformed = await fetch(new URL('runs/%E0%A4%A', server.url));
  assert.equal(malformed.status, 400);
  assert.match(await malformed.text(), /not valid percent-encoding/);
  // Error pages repeat what was asked for: they are text, and say so firmly enough that no browser renders them.
  const reflected = await fetch(new URL('runs/%3Cscript%3Ealert(1)%3C%2Fscript%3E', server.url));
  assert.equal(reflected.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(reflected.headers.get('x-content-type-options'), 'nosniff');
});

test('a parameter a page does not read, or a value outside its choices, is a 400 naming what the page takes', async () => {
  const cases: [string, RegExp][] = [
    ['/?sort=bogus', /sort must be one of run, suite, .*passRate.*, got 'bogus'/],
    ['/?order=up', /order must be one of asc, desc, got 'up'/],
    ['/?sortt=passRate', /\/ has no parameter 'sortt'/],
    [`/runs/${runId}?stauts=scored`, new RegExp(`/runs/${runId} has no parameter 'stauts'`)],
    [`/runs/${runId}/tasks/funcgen/2/0?outcom=failed`, /has no parameter 'outcom'/],
    [`/api/runs/${runId}/episodes?transcripts=no`, /transcripts must be one of 0, 1, got 'no'/],
    [`/api/runs/${runId}/episodes?knob.=1`, /has no parameter 'knob\.'/],
    [`/compare?a=${runId}&b=${randomRunId}&only=some`, /only must be one of differ, all, got 'some'/],
    [`/compare?a=${runId}&b=${randomRunId}&c=x`, /\/compare has no parameter 'c'/],
    ['/report?run=x', /\/report has no parameter 'run'/],
    [`/api/runs/${runId}?limit=1`, /has no parameter 'limit'.*\n.*open .* without a query string/],
    [`/runs/${runId}/difficulty?x=1`, /has no parameter 'x'/],
    // Filter values that would match nothing and look like an empty result.
    [`/api/runs/${runId}/episodes?failure=bogus`, /failure must be a failure code \(output\.unparsable, .*\), got 'bogus'/],
    [`/api/runs/${runId}/episodes?knob.nope=1`, new RegExp(`the tasks of run ${runId} have no knob 'nope'\n.*fix: filter on one of: knob\.core, knob\.depth`)],
    [`/runs/${runId}?knob.core=abc`, /knob\.core must be a number, got 'abc'/],
    [`/runs/${runId}?knob.restate=maybe`, /knob\.restate must be true or false, got 'maybe'/],
    [`/runs/${runId}?outcome=passed&outcome=failed`, /outcome is given 2 times; it takes one value/],
    ['/?sort=passRate&sort=tasks', /sort is given 2 times; it takes one value/],
  ];
  for (const [path, pattern] of cases) {
    const response = await get(path);
    assert.equal(response.status, 400, path);
    assert.match(response.text, pattern, path);
  }
  // What the pages' own links and forms send is taken, empty values (a form's "any") included.
  for (const path of ['/?sort=passRate&order=asc', `/runs/${runId}?status=&outcome=failed&failure=&task=&search=&knob.core=5&limit=5&offset=0`,
    `/api/runs/${runId}/episodes?transcripts=0&knob.core=5`, `/runs/${runId}?knob.restate=false&failure=result.wrong`, `/compare?a=${runId}&b=${randomRunId}&only=all`, `/compare?a=${runId}&b=${randomRunId}&only=`]) {
    assert.equal((await get(path)).status, 200, path);
  }
});

test('compare pairs tasks by content: the same ids from other knobs are not compared, and the page says so', async () => {
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, { core: '6' });
  const tasks = await generateTasks(suite, { seed: 2, count: 6, params });
  const otherRunId = (await runEvaluation({ suite, tasks, modelRef: 'builtin/random', seed: 2, params, dbPath: databasePath })).runId;
  // Same seed and ids (funcgen/2/0 ...), other tasks: nothing is shared.
  const list = await get(`/compare?a=${runId}&b=${otherRunId}&only=all`);
  assert.equal(list.status, 200);
  assert.match(list.text, /: 0 shared tasks\. /);
  assert.match(list.text, /Note: 6 task id\(s\) name different tasks in the two runs \(other knobs or seeds\): they are not compared\./);
  const one = await get(`/compare?a=${runId}&b=${otherRunId}&task=funcgen/2/0`);
  assert.equal(one.status, 400);
  assert.match(one.text, new RegExp(`task 'funcgen/2/0' of run ${runId} is not a task of run ${otherRunId} \\(that run has a different task under this id`));
  // The same tasks still pair.
  const shared = await get(`/compare?a=${runId}&b=${randomRunId}&only=all`);
  assert.match(shared.text, /: 6 shared tasks\. /);
  assert.doesNotMatch(shared.text, /not compared/);
  assert.equal((await get(`/compare?a=${runId}&b=${randomRunId}&task=funcgen/2/0`)).status, 200);
});

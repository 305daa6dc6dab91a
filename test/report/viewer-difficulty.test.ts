/**
 * The viewer's difficulty charts (issue 13): the runs page lists sweeps; a sweep page draws the report's
 * difficulty charts (a line per model over its Wilson band) with their tables; a run page links to the run's
 * own difficulty page, which charts the axes its tasks vary on, each level a link to the knob filter of that level.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReportServer } from '../../src/report/report-server.ts';
import { startReportServer } from '../../src/report/report-server.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { runSweep } from '../../src/runner/run-sweep.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { fixturePath } from '../require-data.ts';

describe('viewer: difficulty charts', () => {
  let server: ReportServer;
  let group = '';
  let sweepRunIds: string[] = [];
  let mixedRunId = '';
  let importedRunId = '';
  let dbPath = '';

  before(async () => {
    dbPath = join(mkdtempSync(join(tmpdir(), 'toolforge-viewer-difficulty-')), 'results.db');
    const suite = getSuite('funcgen');
    const sweep = await runSweep({
      suite, grid: { core: ['3', '6'], depth: ['1', '2'] }, models: ['builtin/planner', 'builtin/noisy'],
      fixed: { connected: '0', disconnected: '0' }, seed: 5, count: 4, dbPath, group: 'sweep-viewer-test', validate: false,
    });
    group = sweep.group;
    sweepRunIds = sweep.runs.map((run) => run.summary.runId);
    // One run whose tasks differ in core (two generations in one task list): its own curve.
    const easy = await generateTasks(suite, { seed: 1, count: 3, params: resolveKnobs(suite.id, suite.knobs, { core: 3, depth: 1, connected: 0, disconnected: 0 }) });
    const hard = await generateTasks(suite, { seed: 2, count: 2, params: resolveKnobs(suite.id, suite.knobs, { core: 6, depth: 1, connected: 0, disconnected: 0 }) });
    mixedRunId = (await runEvaluation({ suite, tasks: [...easy, ...hard], modelRef: 'builtin/noisy', seed: 1, params: {}, dbPath })).runId;
    // Imported NESTFUL data: its tasks vary in calls by their statistics, not by a knob.
    const nestful = getSuite('nestful');
    const nestfulParams = resolveKnobs(nestful.id, nestful.knobs, { data: fixturePath('nestful', 'samples.json') });
    const imported = await generateTasks(nestful, { seed: 0, count: undefined, params: nestfulParams, validate: false });
    importedRunId = (await runEvaluation({ suite: nestful, tasks: imported, modelRef: 'builtin/random', seed: 0, params: nestfulParams, dbPath })).runId;
    server = await startReportServer({ dbPath });
  });
  after(async () => { await server?.close(); });

  const get = async (path: string) => {
    const response = await fetch(new URL(path, server.url));
    return { status: response.status, text: await response.text() };
  };
  const charts = (html: string): string[] => html.match(/<figure class="difficulty-chart">[\s\S]*?<\/figure><\/figure>/g) ?? [];

  test('the runs page lists the sweep, linked to its page', async () => {
    const index = await get('/');
    assert.equal(index.status, 200);
    assert.ok(index.text.includes(`<a href="/sweeps/${group}">${group}</a>`), 'a link to the sweep page');
    assert.match(index.text, /core=3,6 depth=1,2/);
  });

  test('a sweep page: its runs by grid point, and a chart per varying axis with a line and a band per model', async () => {
    const page = await get(`/sweeps/${group}`);
    assert.equal(page.status, 200);
    for (const runId of sweepRunIds) assert.ok(page.text.includes(`<a href="/runs/${runId}">${runId}</a>`), runId);
    assert.match(page.text, /core=6 depth=2/);
    // The command it shows reads this database, not the default one.
    assert.ok(page.text.includes(`<code>toolforge report --sweep ${group} --db ${dbPath}</code>`), 'the report command names the database');
    const drawn = charts(page.text);
    assert.equal(drawn.length, 2, 'core and depth');
    for (const chart of drawn) {
      assert.match(chart, /<svg/);
      assert.match(chart, /aria-label="area"/);
      assert.match(chart, /aria-label="line"/);
      assert.match(chart, /builtin\/noisy/);
      assert.match(chart, /builtin\/planner/);
    }
    assert.match(page.text, /Accuracy by core \(funcgen/);
    assert.match(page.text, /Accuracy by depth \(funcgen/);
    assert.equal((await get('/sweeps/no-such-sweep')).status, 404);
  });

  test('a run of one grid point links to its sweep; its difficulty page says its tasks vary on no axis', async () => {
    const page = await get(`/runs/${sweepRunIds[0]}`);
    assert.equal(page.status, 200);
    assert.equal(charts(page.text).length, 0, 'the run page itself draws no chart (it reads no task)');
    assert.ok(page.text.includes(`<a href="/sweeps/${group}">`), 'a link to the sweep');
    assert.ok(page.text.includes(`<a href="/runs/${sweepRunIds[0]}/difficulty">`), 'a link to its difficulty page');
    const difficulty = await get(`/runs/${sweepRunIds[0]}/difficulty`);
    assert.equal(difficulty.status, 200);
    assert.equal(charts(difficulty.text).length, 0);
    assert.match(difficulty.text, /do not vary along any difficulty axis/);
    assert.ok(difficulty.text.includes(`<a href="/sweeps/${group}">`));
  });

  test('a run whose tasks vary in core: its difficulty page charts it, each level linked to the knob filter', async () => {
    const runPage = await get(`/runs/${mixedRunId}`);
    assert.ok(runPage.text.includes(`<a href="/runs/${mixedRunId}/difficulty">Accuracy by difficulty</a>`));
    const page = await get(`/runs/${mixedRunId}/difficulty`);
    assert.equal(page.status, 200);
    assert.equal(charts(page.text).length, 1);
    assert.match(page.text, /Accuracy by core \(funcgen/);
    const link = `/runs/${mixedRunId}?knob.core=6`;
    assert.ok(page.text.includes(`<a href="${link}">6</a>`), 'level 6 links to its filter');
    const filtered = await get(link);
    assert.match(filtered.text, /episodes 1–2 of 2/);
    assert.equal((await get('/runs/no-such-run/difficulty')).status, 404);
  });

  test('a run of imported data whose levels are task statistics: no level links, and the page does not say they do', async () => {
    const page = await get(`/runs/${importedRunId}/difficulty`);
    assert.equal(page.status, 200);
    assert.ok(charts(page.text).length >= 1, 'the data\'s tasks vary in calls');
    assert.doesNotMatch(page.text, /links to the run's episodes/);
    assert.doesNotMatch(page.text, /\?knob\./);
    // Nor does a knob filter the tasks do not have pass for an empty result.
    assert.equal((await get(`/runs/${importedRunId}?knob.calls=2`)).status, 400);
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SweepResult } from '../../src/runner/run-sweep.ts';
import { runSweep } from '../../src/runner/run-sweep.ts';
import { sweepMembershipOf } from '../../src/runner/sweep-membership.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { getSuite } from '../../src/suites/registry.ts';
import type { DifficultyCurve } from '../../src/report/difficulty-curves.ts';
import { loadRunReport } from '../../src/report/load-run-report.ts';
import { analyzeReports } from '../../src/report/report-analysis.ts';
import { renderHtml } from '../../src/report/render-html.ts';
import { renderReportJson } from '../../src/report/render-json.ts';
import { renderTable } from '../../src/report/render-table.ts';
import type { ReportJson } from '../../src/report/render-json.ts';
import { compareWithFirstRuns } from '../../src/report/run-comparisons.ts';

/**
 * A funcgen sweep over core x depth with builtin/planner and builtin/noisy (p = 0.1), through the
 * real runner and store: the report shows the noisy policy's accuracy falling along both axes and
 * the planner at 100% everywhere. Seed 2, 12 tasks per point, no irrelevant functions (fewer tools,
 * faster episodes; the slips are on core values only); oracle validation off to keep it quick (the
 * sweep CLI test keeps it on).
 */
describe('a difficulty sweep and its report', () => {
  let directory: string;
  let store: ResultsStore;
  let sweep: SweepResult;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'toolforge-sweep-'));
    store = openResultsStore(join(directory, 'results.db'));
    sweep = await runSweep({
      suite: getSuite('funcgen'), grid: { core: ['5', '10', '20'], depth: ['1', '2', '4'] }, models: ['builtin/planner', 'builtin/noisy'],
      fixed: { connected: '0', disconnected: '0' }, seed: 2, count: 12, store, group: 'sweep-test', validate: false,
    });
  });
  after(() => {
    store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const runIds = (): string[] => sweep.runs.map((run) => run.summary.runId);
  const curve = (curves: readonly DifficultyCurve[], axis: string) => curves.find((candidate) => candidate.axis === axis) as DifficultyCurve;
  const rates = (found: DifficultyCurve, series: string) => found.points.filter((point) => point.series === series).map((point) => [point.level, point.passRate]);

  test('runs the cross product as one group, each run recording the group, the grid and its point', () => {
    assert.equal(sweep.runs.length, 18);
    assert.deepEqual(sweep.skipped, []);
    for (const runId of runIds()) {
      const membership = sweepMembershipOf(store.getRun(runId).params);
      assert.equal(membership?.group, 'sweep-test');
      assert.deepEqual(membership?.grid, { core: [5, 10, 20], depth: [1, 2, 4] });
    }
    assert.deepEqual(sweep.runs.map((run) => [run.point.core, run.point.depth, run.model]).slice(0, 4), [
      [5, 1, 'builtin/planner'], [5, 1, 'builtin/noisy'], [5, 2, 'builtin/planner'], [5, 2, 'builtin/noisy'],
    ]);
    assert.deepEqual(sweepMembershipOf(store.getRun(runIds()[2]).params)?.point, { core: 5, depth: 2 });
  });

  test('JSON: the noisy policy falls with core and with depth; the planner stays at 100%', () => {
    const reports = runIds().map((runId) => loadRunReport(store, runId));
    const json = JSON.parse(renderReportJson(reports, { single: false })) as ReportJson;
    const core = curve(json.difficulty, 'core');
    const depth = curve(json.difficulty, 'depth');
    assert.deepEqual(json.difficulty.map((found) => found.axis), ['core', 'depth']);
    assert.deepEqual(core.series, ['builtin/noisy', 'builtin/planner']);
    assert.deepEqual(rates(core, 'builtin/planner'), [[5, 1], [10, 1], [20, 1]]);
    assert.deepEqual(rates(depth, 'builtin/planner'), [[1, 1], [2, 1], [4, 1]]);
    // Measured on seed 2 (36 episodes per level): 23, 15, 4 passed by core; 20, 12, 10 by depth.
    assert.deepEqual(rates(core, 'builtin/noisy'), [[5, 23 / 36], [10, 15 / 36], [20, 4 / 36]]);
    assert.deepEqual(rates(depth, 'builtin/noisy'), [[1, 20 / 36], [2, 12 / 36], [4, 10 / 36]]);
    for (const found of [core, depth]) {
      const noisy = rates(found, 'builtin/noisy').map(([, rate]) => rate as number);
      assert.ok(noisy.every((rate, index) => index === 0 || rate < noisy[index - 1]), `${found.axis}: ${noisy}`);
      // Every noisy failure is a slipped value, counted at its level.
      for (const point of found.points.filter((candidate) => candidate.series === 'builtin/noisy')) {
        assert.deepEqual(point.failures, { 'arguments.incorrect-value': point.scored - point.passed });
      }
    }
    const lowest = core.points.find((point) => point.series === 'builtin/noisy' && point.level === 20);
    assert.ok(lowest && lowest.passRateCI95[0] < lowest.passRate && lowest.passRateCI95[1] > lowest.passRate);
    assert.deepEqual(json.leaderboard?.rows.map((row) => [row.model, row.cells.funcgen?.scored, row.cells.funcgen?.passRate]), [
      ['builtin/planner', 108, 1], ['builtin/noisy', 108, 42 / 108],
    ]);
    assert.equal(json.runs.length, 18);
    assert.equal(json.runs[0].sweep?.group, 'sweep-test');
    assert.deepEqual(json.runs[0].usage.latencyMs === null, false);
  });

  test('each grid point pairs noisy with planner and states the tasks needed to tell them apart', () => {
    const comparisons = compareWithFirstRuns(store, runIds());
    assert.equal(comparisons.length, 9);
    for (const [index, { comparison, trialsNeeded }] of comparisons.entries()) {
      assert.equal(comparison.baselineRunId, runIds()[2 * index]);
      assert.equal(comparison.treatmentRunId, runIds()[2 * index + 1]);
      assert.equal(trialsNeeded?.pairs, 12);
      assert.equal(trialsNeeded?.treatmentOnly, 0);
    }
    // core=5 depth=1: 2 of 12 slipped (ψ = δ = 1/6): n = (1.959964·√(1/6) + 0.841621·√(1/6 - 1/36))² · 36 = 44.7 -> 45.
    assert.equal(comparisons[0].trialsNeeded?.baselineOnly, 2);
    assert.equal(comparisons[0].trialsNeeded?.needed, 45);
  });

  test('table and HTML carry the difficulty figures; the HTML chart is inline SVG with interval bands, byte-identical', () => {
    const reports = runIds().map((runId) => loadRunReport(store, runId));
    const comparisons = compareWithFirstRuns(store, runIds());
    const table = renderTable(reports, { comparisons, runDetails: false });
    assert.match(table, /Accuracy by core \(funcgen/);
    assert.match(table, /\n +20 +builtin\/noisy +36 +4 +11\.1% +\[4\.4%, 25\.3%\]/);
    assert.match(table, /Failures by depth \(funcgen\)/);
    assert.match(table, /sweep point/);
    assert.match(table, /core=10 depth=4/);
    assert.match(table, /tasks needed/);
    const html = renderHtml(reports, { comparisons, analysis: analyzeReports(reports) });
    const charts = html.match(/<figure class="difficulty-chart">[\s\S]*?<\/figure><\/figure>/g) ?? [];
    assert.equal(charts.length, 2);
    for (const chart of charts) {
      assert.match(chart, /aria-label="area"/);
      assert.match(chart, /aria-label="line"/);
      assert.match(chart, /builtin\/noisy/);
    }
    assert.match(html, /<h2>Cost and latency<\/h2>/);
    assert.match(html, /<h3>Leaderboard<\/h3>/);
    assert.doesNotMatch(html, /<script|<link |src="http/);
    const reloaded = runIds().map((runId) => loadRunReport(store, runId));
    assert.equal(renderHtml(reloaded, { comparisons: compareWithFirstRuns(store, runIds()) }), html);
  });
});

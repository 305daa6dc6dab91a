/**
 * The viewer in a real browser: headless Chromium (Debian's `chromium` package) driven by playwright-core.
 * Navigates the runs table, the failure filter, a task page and the side-by-side page, then (on a second
 * database) a funcgen sweep of builtin/planner and builtin/noisy over core x depth: the sweep page's
 * difficulty charts and the static HTML report's. Saves a screenshot of each page to a temporary folder
 * named in the test output. Skipped, with the reason, when no Chromium is installed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { ReportServer } from '../../src/report/report-server.ts';
import { startReportServer } from '../../src/report/report-server.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { runSweep } from '../../src/runner/run-sweep.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';

const chromiumPath = process.env.TOOLFORGE_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `no Chromium at ${chromiumPath} (apt-get install -y chromium, or set TOOLFORGE_CHROMIUM)`;

let server: ReportServer;
let sweepServer: ReportServer;
let browser: Browser;
let oracleRunId = '';
let randomRunId = '';
const screenshots = mkdtempSync(join(tmpdir(), 'toolforge-viewer-screens-'));

before(async () => {
  if (skip) return;
  const dbPath = join(mkdtempSync(join(tmpdir(), 'toolforge-viewer-browser-')), 'results.db');
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, {});
  const tasks = await generateTasks(suite, { seed: 4, count: 6, params });
  oracleRunId = (await runEvaluation({ suite, tasks, modelRef: 'builtin/oracle', seed: 4, params, dbPath })).runId;
  randomRunId = (await runEvaluation({ suite, tasks, modelRef: 'builtin/random', seed: 4, params, dbPath })).runId;
  server = await startReportServer({ dbPath });
  const sweepDbPath = join(mkdtempSync(join(tmpdir(), 'toolforge-viewer-browser-sweep-')), 'results.db');
  await runSweep({
    suite, grid: { core: ['4', '8', '16'], depth: ['1', '2', '4'] }, models: ['builtin/planner', 'builtin/noisy'],
    fixed: { connected: '0', disconnected: '0' }, seed: 2, count: 8, dbPath: sweepDbPath, group: 'sweep-browser', validate: false,
  });
  sweepServer = await startReportServer({ dbPath: sweepDbPath });
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await sweepServer?.close();
});

test('the viewer in headless Chromium: runs, failure filter, task page, side by side', { skip }, async (context) => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(server.url);
  assert.equal(await page.locator('#runs tbody tr').count(), 2);
  await page.screenshot({ path: join(screenshots, '1-runs.png'), fullPage: true });

  // Sort by pass rate (numeric), ascending: the random run comes first.
  // Each click navigates: the next step waits for its page, or a slow machine clicks the old page's link again.
  await page.getByRole('link', { name: 'pass rate' }).click();
  await page.waitForURL(/[?&]sort=passRate&order=desc$/);
  await page.getByRole('link', { name: /pass rate/ }).click();
  await page.waitForURL(/[?&]sort=passRate&order=asc$/);
  assert.equal(await page.locator('#runs tbody tr').first().locator('td').nth(2).innerText(), 'builtin/random');

  await page.getByRole('link', { name: randomRunId }).click();
  await page.waitForURL(/\/runs\//);
  const allRows = await page.locator('#episodes tbody tr').count();
  await page.selectOption('select[name="outcome"]', 'failed');
  await page.getByRole('button', { name: 'filter' }).click();
  await page.waitForURL(/outcome=failed/);
  const failedRows = await page.locator('#episodes tbody tr.failed').count();
  assert.ok(failedRows > 0 && failedRows <= allRows);
  assert.equal(await page.locator('#episodes tbody tr.passed').count(), 0);
  await page.screenshot({ path: join(screenshots, '2-run-failed-only.png'), fullPage: true });

  await page.locator('#episodes tbody tr a').first().click();
  await page.waitForURL(/\/tasks\//);
  assert.ok(await page.locator('.gold h3').isVisible());
  assert.ok(await page.locator('[data-failing]').count() > 0, 'the failing call or answer is highlighted');
  await page.screenshot({ path: join(screenshots, '3-task.png'), fullPage: true });

  await page.selectOption('select[name="b"]', oracleRunId);
  await page.getByRole('button', { name: 'compare' }).click();
  await page.waitForURL(/\/compare\?/);
  assert.equal(await page.locator('#side-by-side > .side').count(), 2);
  await page.screenshot({ path: join(screenshots, '4-side-by-side.png'), fullPage: true });

  await page.goto(new URL('report', server.url).href);
  assert.ok(await page.locator('svg').count() > 0);
  await page.screenshot({ path: join(screenshots, '5-static-report.png'), fullPage: true });
  context.diagnostic(`screenshots in ${screenshots}`);
});

test('difficulty charts in headless Chromium: a sweep from the runs page, and the static report', { skip }, async (context) => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(sweepServer.url);
  await page.getByRole('link', { name: 'sweep-browser' }).click();
  await page.waitForURL(/\/sweeps\/sweep-browser$/);
  // 9 points x 2 models, less core=4 depth=4 (a depth needs more core functions than that): 16 runs.
  assert.equal(await page.locator('#sweep-runs tbody tr').count(), 16);
  const charts = page.locator('figure.difficulty-chart');
  assert.equal(await charts.count(), 2, 'core and depth');
  for (const chart of await charts.all()) {
    const box = await chart.locator('svg').last().boundingBox();
    assert.ok(box && box.width > 300 && box.height > 150, `the chart is drawn (${JSON.stringify(box)})`);
    // A line and a band for each of the two models.
    assert.equal(await chart.locator('g[aria-label="line"] path').count(), 2);
    assert.equal(await chart.locator('g[aria-label="area"] path').count(), 2);
  }
  await page.screenshot({ path: join(screenshots, '6-sweep-difficulty.png'), fullPage: true });

  // A run of the sweep links back to the sweep.
  await page.locator('#sweep-runs tbody tr a').first().click();
  await page.waitForURL(/\/runs\//);
  await page.getByRole('link', { name: 'sweep-browser' }).click();
  await page.waitForURL(/\/sweeps\/sweep-browser$/);

  await page.goto(new URL('report', sweepServer.url).href);
  assert.equal(await page.locator('#difficulty figure.difficulty-chart').count(), 2);
  await page.screenshot({ path: join(screenshots, '7-sweep-static-report.png'), fullPage: true });
  await page.locator('#difficulty').screenshot({ path: join(screenshots, '8-sweep-static-report-difficulty.png') });
  context.diagnostic(`screenshots in ${screenshots}`);
});

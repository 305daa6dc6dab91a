/**
 * The viewer in a real browser: headless Chromium (Debian's `chromium` package) driven by playwright-core.
 * Navigates the runs table, the failure filter, a task page and the side-by-side page, and saves a
 * screenshot of each (and of the static HTML report) to a temporary folder named in the test output.
 * Skipped, with the reason, when no Chromium is installed.
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
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';

const chromiumPath = process.env.TOOLFORGE_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `no Chromium at ${chromiumPath} (apt-get install -y chromium, or set TOOLFORGE_CHROMIUM)`;

let server: ReportServer;
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
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the viewer in headless Chromium: runs, failure filter, task page, side by side', { skip }, async (context) => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(server.url);
  assert.equal(await page.locator('#runs tbody tr').count(), 2);
  await page.screenshot({ path: join(screenshots, '1-runs.png'), fullPage: true });

  // Sort by pass rate (numeric), ascending: the random run comes first.
  await page.getByRole('link', { name: 'pass rate' }).click();
  await page.getByRole('link', { name: /pass rate/ }).click();
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

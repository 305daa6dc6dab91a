import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EpisodeRecord } from '../../src/core/episode.ts';
import type { Score } from '../../src/core/score.ts';
import type { RunReport } from '../../src/report/run-report.ts';
import { summaryObject } from '../../src/report/run-report.ts';
import { taskResults } from '../../src/report/task-results.ts';
import { renderTable } from '../../src/report/render-table.ts';
import { renderJson } from '../../src/report/render-json.ts';
import { csvField, renderCsv } from '../../src/report/render-csv.ts';
import { escapeHtml, renderHtml } from '../../src/report/render-html.ts';
import { textTable } from '../../src/report/text-table.ts';
import { formatNumber } from '../../src/report/format-figure.ts';

function episode(taskId: string, trial: number, score: Score | null, status: EpisodeRecord['status'] = 'scored'): EpisodeRecord {
  return {
    schemaVersion: 1, runId: 'run-1', taskId, model: 'builtin/planner', mode: 'calls', trial, status,
    termination: status === 'scored' ? 'final-answer' : null, messages: [], score,
    usage: { inputTokens: 10, outputTokens: 5 }, attempts: 1, startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T00:00:01.000Z', durationMs: 1000,
    error: status === 'infrastructure-error' ? { code: 'provider.server-error', message: 'HTTP 503, "busy"' } : null,
    finalState: null, calls: [], warnings: [],
  };
}

const pass: Score = { value: 1, passed: true, reason: 'ok' };
const wrong: Score = { value: 0, passed: false, reason: 'wrong', failure: 'result.wrong' };
const early: Score = { value: 0, passed: false, reason: 'early', failure: 'arguments.value-not-yet-known' };

function sampleReport(): RunReport {
  return {
    summary: {
      runId: 'run-1', suite: 'funcgen', model: 'builtin/planner', mode: 'calls', tasks: 2, trials: 2, episodes: 4,
      infrastructureErrors: 1, passRate: 1 / 3, passRateCI95: [0.0615, 0.7923],
      metrics: { avgCallsSuccess: 3.5 },
      failures: { 'result.wrong': 1, 'arguments.value-not-yet-known': 1, 'tool.unknown': 0 },
      tables: [{ title: 'By depth', columns: ['depth', 'pass rate'], rows: [[2, 0.5], [3, null]] }],
    },
    startedAt: '2026-01-01T00:00:00.000Z',
    episodes: [episode('t-b', 1, early), episode('t-a', 0, pass), episode('t-a', 1, wrong), episode('t-b', 0, null, 'infrastructure-error')],
  };
}

describe('task results', () => {
  test('groups episodes by task in id order, leaving infrastructure errors unscored', () => {
    assert.deepEqual(taskResults(sampleReport().episodes), [
      { taskId: 't-a', scored: 2, passed: 1, meanScore: 0.5, failures: ['result.wrong'], infrastructureErrors: 0 },
      { taskId: 't-b', scored: 1, passed: 0, meanScore: 0, failures: ['arguments.value-not-yet-known'], infrastructureErrors: 1 },
    ]);
  });
});

describe('formatting', () => {
  test('numbers keep at most four decimals', () => {
    assert.equal(formatNumber(3), '3');
    assert.equal(formatNumber(1 / 3), '0.3333');
    // A rate over no cases is shown as such, not as NaN.
    assert.equal(formatNumber(Number.NaN), 'n/a');
    assert.equal(formatNumber(0.5), '0.5');
  });

  test('text tables right-align numeric columns', () => {
    assert.equal(textTable({ columns: ['name', 'n'], rows: [['a', 1], ['bb', 10]] }), 'name   n\n----  --\na      1\nbb    10');
  });

  test('csv fields with commas, quotes or newlines are quoted', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('x\ny'), '"x\ny"');
  });

  test('html escaping covers markup characters', () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});

describe('renderers', () => {
  test('summary object has exactly the documented keys', () => {
    assert.deepEqual(Object.keys(summaryObject(sampleReport().summary)), [
      'runId', 'suite', 'model', 'mode', 'tasks', 'trials', 'episodes', 'infrastructureErrors', 'passRate', 'passRateCI95', 'metrics', 'failures', 'retries',
    ]);
  });

  test('table shows pass rate, interval, metrics, non-zero failures and suite tables', () => {
    const text = renderTable([sampleReport()]);
    assert.match(text, /pass rate 33\.3% {2}95% CI \[6\.2%, 79\.2%\]/);
    assert.match(text, /avgCallsSuccess +3\.5/);
    assert.match(text, /arguments\.value-not-yet-known +1/);
    assert.doesNotMatch(text, /tool\.unknown/);
    assert.match(text, /By depth\ndepth +pass rate/);
  });

  test('table prints retries by cause when there were any, and json carries them', () => {
    const report = sampleReport();
    assert.doesNotMatch(renderTable([report]), /retries/);
    report.summary = { ...report.summary, retries: { 'provider.timeout': 1, 'provider.rate-limited': 12 } };
    assert.match(renderTable([report]), /\nretries 13: provider\.rate-limited 12, provider\.timeout 1\n/);
    assert.deepEqual(summaryObject(report.summary).retries, { 'provider.timeout': 1, 'provider.rate-limited': 12 });
  });

  test('several runs get an overview first', () => {
    const second = sampleReport();
    second.summary = { ...second.summary, runId: 'run-2', passRate: 1, passRateCI95: [0.5, 1] };
    const text = renderTable([sampleReport(), second]);
    assert.match(text.split('\n')[2], /^run-1 +funcgen +builtin\/planner +calls +4 +33\.3%/);
    assert.match(text, /run run-2: suite funcgen/);
  });

  test('json: one run is an object with task results, several an array', () => {
    const single = JSON.parse(renderJson([sampleReport()], { single: true }));
    assert.equal(single.runId, 'run-1');
    assert.deepEqual(single.passRateCI95, [0.0615, 0.7923]);
    assert.equal(single.taskResults.length, 2);
    assert.deepEqual(single.tables[0].rows, [[2, 0.5], [3, null]]);
    const many = JSON.parse(renderJson([sampleReport(), sampleReport()], { single: false }));
    assert.equal(many.length, 2);
  });

  test('csv has one row per episode, sorted by task and trial', () => {
    const lines = renderCsv([sampleReport()]).trimEnd().split('\n');
    assert.equal(lines.length, 5);
    assert.equal(lines[1], 'run-1,funcgen,builtin/planner,calls,t-a,0,scored,true,1,,final-answer,1,1000,10,5,');
    assert.equal(lines[2], 'run-1,funcgen,builtin/planner,calls,t-a,1,scored,false,0,result.wrong,final-answer,1,1000,10,5,');
    assert.equal(lines[3], 'run-1,funcgen,builtin/planner,calls,t-b,0,infrastructure-error,,,,,1,1000,10,5,"provider.server-error: HTTP 503, ""busy"""');
  });

  test('html is self-contained, has svg charts, and is byte-identical for identical data', () => {
    const html = renderHtml([sampleReport()]);
    assert.ok(html.startsWith('<!doctype html>'));
    assert.equal((html.match(/<svg/g) ?? []).length >= 2, true, 'pass-rate and failure charts');
    assert.doesNotMatch(html, /<script|<link |src="http/);
    assert.match(html, /Per-task results \(2 tasks\)/);
    assert.match(html, /<caption>By depth<\/caption>/);
    assert.equal(renderHtml([sampleReport()]), html);
  });

  test('html without failures says so instead of drawing an empty chart', () => {
    const report = sampleReport();
    report.summary = { ...report.summary, failures: { 'result.wrong': 0 } };
    const html = renderHtml([report]);
    assert.equal((html.match(/<svg/g) ?? []).length, 1);
    assert.match(html, /No failed episodes/);
  });
});

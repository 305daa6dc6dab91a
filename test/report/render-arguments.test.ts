/**
 * renderTable and renderJson called with what is not a list of run reports (nothing, a run id, a run's summary, a
 * report not in a list, a report missing fields) throw a ConfigError naming the argument and what to pass, never a
 * TypeError from inside the renderer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/core/errors.ts';
import { renderJson } from '../../src/report/render-json.ts';
import { renderRunTable, renderTable } from '../../src/report/render-table.ts';
import type { RunReport } from '../../src/report/run-report.ts';

function sampleReport(): RunReport {
  return {
    summary: {
      runId: 'run-1', suite: 'funcgen', model: 'builtin/planner', mode: 'calls', tasks: 1, trials: 1, episodes: 1,
      infrastructureErrors: 0, passRate: 1, passRateCI95: [0.2065, 1], metrics: {}, failures: {}, tables: [],
    },
    startedAt: '2026-01-01T00:00:00.000Z',
    episodes: [],
  };
}

/** What runEvaluation returns: a run's summary, which is not a report (it has no episodes). */
const runSummary = { ...sampleReport().summary, suiteVersion: '1', status: 'finished', createdAt: '2026-01-01T00:00:00.000Z', passed: 1, missingEpisodes: 0 };

const refusal = (problem: RegExp, fix: RegExp) => (error: unknown): boolean => {
  assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
  assert.equal(error.code, 'config.invalid');
  assert.match(error.problem, problem);
  assert.match(error.fix ?? '', fix);
  return true;
};

const wrongReports: [string, unknown, RegExp, RegExp][] = [
  ['nothing', undefined, /reports must be a list of run reports, got undefined/, /pass \[loadRunReport\(store, runId\)\]/],
  ['a run id', 'run-1', /reports must be a list of run reports, got a string \('run-1'\)/, /\[loadRunReport\(store, 'run-1'\)\]/],
  ['a run summary', runSummary, /reports must be a list of run reports, got a run summary/, /\[loadRunReport\(store, summary\.runId\)\]/],
  ['one report not in a list', sampleReport(), /reports must be a list of run reports, got one run report/, /put it in a list: \[report\]/],
  ['a list of run summaries', [runSummary], /reports\[0\] is a run summary, not a run report/, /loadRunReport\(store, summary\.runId\)/],
  ['a report missing its suite', [{ ...sampleReport(), summary: { ...sampleReport().summary, suite: undefined } }], /reports\[0\]\.summary\.suite: /, /loadRunReport\(store, runId\)/],
  ['a report without episodes', [{ ...sampleReport(), episodes: undefined }], /reports\[0\]\.episodes: /, /loadRunReport\(store, runId\)/],
  ['null in the list', [sampleReport(), null], /reports\[1\]: /, /loadRunReport\(store, runId\)/],
];

test('renderTable names the argument a caller got wrong and what to pass', () => {
  for (const [name, reports, problem, fix] of wrongReports) {
    assert.throws(() => renderTable(reports as RunReport[]), refusal(new RegExp(`renderTable: ${problem.source}`), fix), name);
  }
  assert.throws(() => renderTable([sampleReport()], null as never), refusal(/renderTable: options must be an object/, /leave options out/));
  // Right arguments still render.
  assert.match(renderTable([sampleReport()]), /run run-1: suite funcgen/);
  assert.equal(renderTable([]), 'no runs recorded\n');
});

test('renderJson names the argument a caller got wrong and what to pass', () => {
  for (const [name, reports, problem, fix] of wrongReports) {
    assert.throws(() => renderJson(reports as RunReport[], { single: true }), refusal(new RegExp(`renderJson: ${problem.source}`), fix), name);
  }
  assert.throws(() => renderJson([sampleReport()], undefined as never), refusal(/renderJson: options\.single must be true or false, got undefined/, /\{ single: true \}/));
  assert.equal(JSON.parse(renderJson([sampleReport()], { single: true })).runId, 'run-1');
});

test('renderRunTable names a summary that is not one', () => {
  assert.throws(() => renderRunTable(undefined as never), refusal(/renderRunTable: summary must be a run's summary, got undefined/, /runEvaluation/));
  assert.throws(() => renderRunTable({ runId: 'run-1' } as never), refusal(/renderRunTable: summary\.suite: /, /runEvaluation/));
});

/**
 * The report's Fig. 3 table: the run's adjacent-transition coverage against the number of programs, beside the
 * coverage-guided generator and the w/o-COV ablation drawn with the run's seed and knobs (programs only, no
 * oracles), so every run's report compares the two generators.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Task } from '../../../src/core/task.ts';
import { generateTasks } from '../../../src/runner/generate-tasks.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import { drawPrograms } from '../../../src/suites/stateful/generate-stateful-tasks.ts';
import { statefulSuite } from '../../../src/suites/stateful/index.ts';
import { coverageCurve } from '../../../src/suites/stateful/program-statistics.ts';
import { readStatefulExpected } from '../../../src/suites/stateful/stateful-task.ts';
import { statefulScenarios } from '../../../src/suites/stateful/stateful-scenarios.ts';
import { tableChart } from '../../../src/report/charts.ts';

// Passed episodes, with the details a passing stateful score carries (the table reads the tasks' programs).
const episodes = (tasks: Task[]) => tasks.map((task) => ({
  task, trial: 0, score: { value: 1, passed: true, reason: '', details: { scenario: readStatefulExpected(task).scenario, outcome: 'passed', verdicts: ['passed'], program: '' } },
}));

test('the ATC table: this run, coverage-guided and the ablation at 20 programs and at the run\'s size', async () => {
  const params = resolveKnobs('stateful', statefulSuite.knobs, { scenario: 'tensor' });
  const tasks = await generateTasks(statefulSuite, { seed: 3, count: 25, params, validate: false });
  const summary = statefulSuite.summarize(episodes(tasks));
  const table = summary.tables.find((candidate) => candidate.title.startsWith('Adjacent-transition coverage'));
  assert.ok(table);
  assert.deepEqual(table.columns, ['scenario', 'programs', 'ATC (this run)', 'ATC coverage-guided', 'ATC w/o-COV ablation']);
  const apis = statefulScenarios.tensor.apis.length;
  const run = coverageCurve(tasks.map((task) => readStatefulExpected(task).program), apis, [20, 25]);
  const guided = coverageCurve(drawPrograms({ scenario: 'tensor', seed: 3, count: 25 }), apis, [20, 25]);
  const ablation = coverageCurve(drawPrograms({ scenario: 'tensor', seed: 3, count: 25, coverage: false }), apis, [20, 25]);
  const round = (value: number) => Number(value.toFixed(3));
  assert.deepEqual(table.rows, [0, 1].map((index) => ['tensor', [20, 25][index], round(run[index].atc), round(guided[index].atc), round(ablation[index].atc)]));
  // No program of this run was rejected: the run's programs are the guided generator's.
  assert.deepEqual(tasks.map((task) => readStatefulExpected(task).program), JSON.parse(JSON.stringify(drawPrograms({ scenario: 'tensor', seed: 3, count: 25 }))));
  assert.ok(guided[1].atc > ablation[1].atc, `${guided[1].atc} vs ${ablation[1].atc}`);
  assert.equal(summary.metrics.adjacentTransitionCoverage, round(run[1].atc));
  assert.equal(summary.metrics.adjacentTransitionCoverageAblation, round(ablation[1].atc));
});

test('an ablation run (coverage=false) is compared with the guided generator the same way', async () => {
  const params = resolveKnobs('stateful', statefulSuite.knobs, { scenario: 'voice', coverage: 'false', calls: '3' });
  const tasks = await generateTasks(statefulSuite, { seed: 1, count: 6, params, validate: false });
  const table = statefulSuite.summarize(episodes(tasks)).tables.find((candidate) => candidate.title.startsWith('Adjacent-transition coverage'));
  const apis = statefulScenarios.voice.apis.length;
  const guided = coverageCurve(drawPrograms({ scenario: 'voice', seed: 1, count: 6, calls: 3 }), apis, [6]);
  const ablation = coverageCurve(drawPrograms({ scenario: 'voice', seed: 1, count: 6, calls: 3, coverage: false }), apis, [6]);
  assert.deepEqual(table?.rows, [['voice', 6, Number(ablation[0].atc.toFixed(3)), Number(guided[0].atc.toFixed(3)), Number(ablation[0].atc.toFixed(3))]]);
});

test('the ATC table is drawn as a chart too: one panel per scenario, a line per generator', async () => {
  const params = resolveKnobs('stateful', statefulSuite.knobs, { scenario: 'tensor' });
  const tasks = await generateTasks(statefulSuite, { seed: 3, count: 25, params, validate: false });
  const table = statefulSuite.summarize(episodes(tasks)).tables.find((candidate) => candidate.title.startsWith('Adjacent-transition coverage'));
  assert.ok(table);
  const svg = tableChart(table);
  assert.ok(svg !== null && svg.includes('<svg'), svg?.slice(0, 80));
  // Three lines (this run, coverage-guided, ablation), a dot at each of the two checkpoints; the legend names them.
  assert.equal(svg.match(/<circle /g)?.length ?? 0, 3 * 2);
  for (const name of ['ATC (this run)', 'ATC coverage-guided', 'ATC w/o-COV ablation']) assert.ok(svg.includes(name), name);
  assert.equal(tableChart(table), svg, 'the same data draws the same bytes');
  assert.throws(() => tableChart({ ...table, chart: { ...table.chart!, lines: ['no such column'] } }), /charts column 'no such column'/);
});

import { wilsonInterval } from '../../metrics/wilson-interval.ts';
import type { RunOutcomeCounts } from '../../store/episode-query.ts';
import type { SweepMembership } from '../../runner/sweep-membership.ts';
import { sweepMembershipOf } from '../../runner/sweep-membership.ts';
import type { StoredRun } from '../../store/stored-run.ts';
import { modelSettingsLabel } from '../../models/model-settings-label.ts';
import { formatInterval, formatPercent } from '../format-figure.ts';
import { transformsLabel } from '../model-variant.ts';
import { runModeLabel } from '../run-mode-label.ts';
import { escapeHtml } from '../render-html.ts';
import { link, runPath, sweepPath, viewerShell } from './viewer-shell.ts';
import { checkParameters, choiceParameter } from './viewer-query.ts';

/** `status`: the run's status as shown (a killed run is 'interrupted', see shownRunStatus). */
export type RunsIndexRow = { run: StoredRun; counts: RunOutcomeCounts; status: string };

type Column = { key: string; title: string; value: (row: RunsIndexRow) => string | number; numeric: boolean };

const columns: readonly Column[] = [
  { key: 'run', title: 'run', value: (row) => row.run.id, numeric: false },
  { key: 'suite', title: 'suite', value: (row) => row.run.suite.id, numeric: false },
  { key: 'model', title: 'model', value: (row) => row.run.model, numeric: false },
  { key: 'modelSettings', title: 'model settings', value: (row) => modelSettingsLabel(row.run.baseUrl, row.run.settings), numeric: false },
  { key: 'mode', title: 'mode', value: (row) => runModeLabel(row.run), numeric: false },
  { key: 'transforms', title: 'transforms', value: (row) => transformsLabel(row.run.provenance.transforms), numeric: false },
  { key: 'status', title: 'status', value: (row) => row.status, numeric: false },
  { key: 'started', title: 'started', value: (row) => row.run.createdAt, numeric: false },
  { key: 'tasks', title: 'tasks', value: (row) => row.run.taskCount, numeric: true },
  { key: 'trials', title: 'trials', value: (row) => row.run.trials, numeric: true },
  { key: 'episodes', title: 'scored', value: (row) => row.counts.scored, numeric: true },
  { key: 'passed', title: 'passed', value: (row) => row.counts.passed, numeric: true },
  { key: 'passRate', title: 'pass rate', value: (row) => passRate(row.counts), numeric: true },
  { key: 'infrastructureErrors', title: 'infrastructure errors', value: (row) => row.counts.infrastructureErrors, numeric: true },
];

/**
 * Every run, from SQL counts only (no transcript, no task body is read), so the index stays fast on large
 * databases. Sorting is server-side (`?sort=<column>&order=asc|desc`), numeric columns as numbers.
 */
export function renderRunsIndex(rows: readonly RunsIndexRow[], parameters: URLSearchParams): string {
  checkParameters(parameters, '/', ['sort', 'order']);
  const sortKey = choiceParameter(parameters, 'sort', columns.map((candidate) => candidate.key), 'started');
  const order = choiceParameter(parameters, 'order', ['asc', 'desc'] as const, 'desc');
  const column = columns.find((candidate) => candidate.key === sortKey)!;
  const sorted = [...rows].sort((left, right) => {
    const a = column.value(left);
    const b = column.value(right);
    const difference = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
    return (order === 'asc' ? difference : -difference) || left.run.id.localeCompare(right.run.id);
  });
  const head = columns.map((candidate) => {
    const nextOrder = candidate.key === column.key && order === 'desc' ? 'asc' : 'desc';
    const arrow = candidate.key === column.key ? (order === 'asc' ? ' ▲' : ' ▼') : '';
    return `<th>${link(`/?sort=${candidate.key}&order=${nextOrder}`, `${candidate.title}${arrow}`)}</th>`;
  }).join('') + '<th>95% CI</th>';
  const body = sorted.map((row) => {
    const { run, counts } = row;
    const cells = columns.map((candidate) => {
      if (candidate.key === 'run') return `<td>${link(runPath(run.id), run.id)}</td>`;
      if (candidate.key === 'passRate') return `<td class="number">${counts.scored === 0 ? '' : formatPercent(passRate(counts))}</td>`;
      const value = candidate.value(row);
      return `<td${candidate.numeric ? ' class="number"' : ''}>${escapeHtml(String(value))}</td>`;
    });
    const interval = counts.scored === 0 ? '' : formatInterval(wilsonInterval(counts.passed, counts.scored));
    return `<tr>${cells.join('')}<td class="interval">${escapeHtml(interval)}</td></tr>`;
  });
  // The second select starts on another run, so the form compares two different runs as it stands.
  const options = (selectedIndex: number) => sorted.map(({ run }, index) => `<option value="${escapeHtml(run.id)}"${index === selectedIndex ? ' selected' : ''}>`
    + `${escapeHtml(`${run.id} (${run.model})`)}</option>`).join('');
  return viewerShell('ToolForge runs', [
    '<h1>Runs</h1>',
    rows.length === 0
      ? '<p>No runs recorded yet: start one with <code>toolforge run &lt;suite&gt; --model &lt;ref&gt;</code>.</p>'
      : `<table id="runs"><thead><tr>${head}</tr></thead><tbody>\n${body.join('\n')}\n</tbody></table>`,
    rows.length < 2 ? '' : [
      '<h2>Compare two runs task by task</h2>',
      '<form class="filters" method="get" action="/compare">',
      `<label>baseline<select name="a">${options(0)}</select></label>`,
      `<label>other<select name="b">${options(1)}</select></label>`,
      '<label>only tasks<select name="only"><option value="differ">whose results differ</option><option value="all">all shared</option></select></label>',
      '<button type="submit">compare</button>',
      '</form>',
    ].join('\n'),
    renderSweepList(rows),
    `<p>${link('/report', 'Full HTML report of every run')} (reads every task; slower on large databases)</p>`,
  ]);
}

/** The sweeps among the runs (from each run's recorded membership, no query), newest first, each linked to its page. */
function renderSweepList(rows: readonly RunsIndexRow[]): string {
  const sweeps = new Map<string, { membership: SweepMembership; runs: RunsIndexRow[] }>();
  for (const row of [...rows].sort((left, right) => right.run.createdAt.localeCompare(left.run.createdAt))) {
    const membership = sweepMembershipOf(row.run.params);
    if (!membership) continue;
    const entry = sweeps.get(membership.group) ?? { membership, runs: [] };
    entry.runs.push(row);
    sweeps.set(membership.group, entry);
  }
  if (sweeps.size === 0) return '';
  const body = [...sweeps.values()].map(({ membership, runs }) => {
    const scored = runs.reduce((sum, row) => sum + row.counts.scored, 0);
    const passed = runs.reduce((sum, row) => sum + row.counts.passed, 0);
    const grid = Object.entries(membership.grid).map(([knob, values]) => `${knob}=${values.map(String).join(',')}`).join(' ');
    return `<tr><td>${link(sweepPath(membership.group), membership.group)}</td><td>${escapeHtml(runs[0]?.run.suite.id ?? '')}</td>`
      + `<td>${escapeHtml(grid)}</td><td>${escapeHtml([...new Set(runs.map((row) => row.run.model))].sort().join(', '))}</td>`
      + `<td class="number">${runs.length}</td><td class="number">${scored === 0 ? '' : formatPercent(passed / scored)}</td></tr>`;
  });
  return ['<h2>Sweeps</h2>', '<p>Each sweep page charts accuracy along the swept knobs, a line per model with its 95% interval band.</p>',
    `<table id="sweeps"><thead><tr><th>sweep</th><th>suite</th><th>grid</th><th>models</th><th>runs</th><th>pass rate</th></tr></thead><tbody>\n${body.join('\n')}\n</tbody></table>`].join('\n');
}

function passRate(counts: RunOutcomeCounts): number {
  return counts.scored === 0 ? 0 : counts.passed / counts.scored;
}

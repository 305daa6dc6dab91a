/**
 * Paired transform reports (DynamicToolBench's robustness figures on any suite): a run of derived
 * tasks (drift, perturb...) against the run of the exact tasks they came from (`run --transform t
 * --baseline` makes both). Per task: passed = every scored trial passed. Both pass rates with Wilson
 * 95% intervals, the per-task flips (pass->fail, fail->pass), the exact McNemar p-value, and the
 * same figures per drift operator (a task counts under each operator that changed one of its tools;
 * tasks whose tools did not change at all under `drift:none`) or per perturbation.
 */
import { canonicalJson } from '../core/json.ts';
import { taskPairKey } from '../core/task-digest.ts';
import type { Task } from '../core/task.ts';
import type { PairedFlips } from '../metrics/paired-flips.ts';
import { pairedFlips } from '../metrics/paired-flips.ts';
import { wilsonInterval } from '../metrics/wilson-interval.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { StoredRun } from '../store/stored-run.ts';
import type { ReportTable } from '../suites/spec.ts';
import { formatInterval, formatNumber, formatPercent } from './format-figure.ts';
import { escapeHtml } from './render-html.ts';
import { textTable } from './text-table.ts';

export type PairedCondition = { runId: string; passed: number; tasks: number; passRate: number; ci95: [number, number] };

export type TransformPairs = {
  suite: string;
  /** The treatment's transforms, as `id:k=v` labels joined by ' + '. */
  transforms: string;
  baseline: PairedCondition;
  treatment: PairedCondition;
  flips: PairedFlips;
  /** One row per drift operator or perturbation, each over the tasks it touched. */
  groups: ({ group: string } & PairedFlips)[];
};

/** Which drift operator made each logged change kind. */
const operatorOfChange: Readonly<Record<string, string>> = {
  'endpoint-renamed': 'endpoint', 'server-moved': 'endpoint', 'parameter-renamed': 'rename', 'type-drifted': 'type',
  'default-flipped': 'default-flip', 'nested-object': 'nest', 'required-to-optional': 'required-swap', 'optional-to-required': 'required-swap',
};

/** The groups a derived task belongs to: the drift operators that changed its tools, its perturbation. */
export function transformGroupsOf(task: Task): string[] {
  const groups = new Set<string>();
  for (const record of task.origin?.transforms ?? []) {
    if (record.id === 'drift') {
      const log = Array.isArray(record.changes.log) ? record.changes.log as { changes?: { kind?: string }[] }[] : [];
      const operators = log.flatMap((entry) => (entry.changes ?? []).map((change) => operatorOfChange[String(change.kind)] ?? String(change.kind)));
      if (operators.length === 0) groups.add('drift:none');
      for (const operator of operators) groups.add(`drift:${operator}`);
    } else if (record.id === 'perturb') {
      groups.add(`perturb:${String(record.knobs.kind)}`);
    }
  }
  return [...groups].sort();
}

function transformLabel(task: Task): string {
  return (task.origin?.transforms ?? []).map((record) => {
    const knobs = Object.entries(record.knobs).map(([name, value]) => `${name}=${String(value)}`).join(',');
    return knobs === '' ? record.id : `${record.id}:${knobs}`;
  }).join(' + ');
}

/** Per task (by its source id): passed in every scored trial. Tasks with no scored episode are left out. */
function outcomes(store: ResultsStore, runId: string, idOf: (task: Task) => string): Record<string, boolean> {
  // Each task's id, not its body, and episodes without transcripts, a page at a time.
  const idOfTask = new Map(Array.from(store.iterateTasks(runId), (task) => [task.id, idOf(task)]));
  const result: Record<string, boolean> = {};
  for (const { outcome: episode } of store.iterateEpisodeOutcomes(runId)) {
    const id = idOfTask.get(episode.taskId);
    if (id === undefined || episode.score === null) continue;
    result[id] = (result[id] ?? true) && episode.score.passed;
  }
  return result;
}

function condition(runId: string, passedById: Readonly<Record<string, boolean>>, ids: readonly string[]): PairedCondition {
  const passed = ids.filter((id) => passedById[id]).length;
  return { runId, passed, tasks: ids.length, passRate: ids.length === 0 ? 0 : passed / ids.length, ci95: wilsonInterval(passed, ids.length) };
}

/** The paired report of one treatment run against its baseline run (same suite; tasks paired by source id and digest). */
export function pairTransformRuns(store: ResultsStore, baselineRunId: string, treatmentRunId: string): TransformPairs {
  const baselineTasks = store.listTasks(baselineRunId);
  const treatmentTasks = store.listTasks(treatmentRunId);
  const baselineKeys = new Set(baselineTasks.map(taskPairKey));
  const paired = treatmentTasks.filter((task) => baselineKeys.has(taskPairKey(task)));
  const sourceId = (task: Task): string => task.origin?.taskId ?? task.id;
  const keep = new Set(paired.map(sourceId));
  const baseline = Object.fromEntries(Object.entries(outcomes(store, baselineRunId, sourceId)).filter(([id]) => keep.has(id)));
  const treatment = Object.fromEntries(Object.entries(outcomes(store, treatmentRunId, sourceId)).filter(([id]) => keep.has(id)));
  const flips = pairedFlips(baseline, treatment);
  const ids = Object.keys(baseline).filter((id) => Object.hasOwn(treatment, id)).sort();
  const members = new Map<string, Set<string>>();
  for (const task of paired) {
    for (const group of transformGroupsOf(task)) {
      if (!members.has(group)) members.set(group, new Set());
      members.get(group)?.add(sourceId(task));
    }
  }
  const subset = (outcome: Record<string, boolean>, wanted: ReadonlySet<string>) => Object.fromEntries(Object.entries(outcome).filter(([id]) => wanted.has(id)));
  const groups = [...members.keys()].sort().map((group) => {
    const wanted = members.get(group) as Set<string>;
    return { group, ...pairedFlips(subset(baseline, wanted), subset(treatment, wanted)) };
  });
  return {
    suite: store.getRun(treatmentRunId).suite.id,
    transforms: paired.length > 0 ? transformLabel(paired[0]) : '',
    baseline: condition(baselineRunId, baseline, ids),
    treatment: condition(treatmentRunId, treatment, ids),
    flips,
    groups,
  };
}

/**
 * Every transformed run in `runIds` (oldest first) against the latest earlier run of the same suite, model, mode and
 * model settings whose untransformed tasks are exactly its sources (the baseline `--baseline` made, or any such run).
 * Another model's run on the same tasks is no baseline: the change would be the models', not the transform's.
 */
export function findTransformPairs(store: ResultsStore, runIds: readonly string[]): TransformPairs[] {
  const result: TransformPairs[] = [];
  runIds.forEach((runId, index) => {
    // Tasks are read a page at a time; an untransformed task ends the look at once.
    const keys = new Set<string>();
    for (const task of store.iterateTasks(runId)) {
      if ((task.origin?.transforms.length ?? 0) === 0) return;
      keys.add(taskPairKey(task));
    }
    if (keys.size === 0) return;
    const run = store.getRun(runId);
    const condition = conditionOf(run);
    const baselineRunId = runIds.slice(0, index).reverse().find((candidate) => {
      if (conditionOf(store.getRun(candidate)) !== condition) return false;
      const candidateTasks = store.listTasks(candidate);
      return candidateTasks.every((task) => task.origin === undefined) && candidateTasks.some((task) => keys.has(taskPairKey(task)));
    });
    if (baselineRunId !== undefined) result.push(pairTransformRuns(store, baselineRunId, runId));
  });
  return result;
}

/** What must be the same for two runs to differ only by a transform: suite, model, mode and model settings. */
function conditionOf(run: StoredRun): string {
  return JSON.stringify([run.suite.id, run.model, run.mode ?? null, canonicalJson(run.settings ?? {}), run.baseUrl ?? null]);
}

function pValueText(pValue: number): string {
  return pValue < 0.0001 ? '<0.0001' : formatNumber(pValue);
}

function signed(fraction: number): string {
  return `${fraction > 0 ? '+' : ''}${formatPercent(fraction)}`;
}

export function transformPairsTable(pairs: readonly TransformPairs[]): ReportTable {
  const rows: (string | number)[][] = [];
  for (const pair of pairs) {
    const row = (group: string, flips: PairedFlips): (string | number)[] => {
      const baselinePassed = flips.bothPassed + flips.passToFail.length;
      const treatmentPassed = flips.bothPassed + flips.failToPass.length;
      return [
        pair.suite, group, pair.baseline.runId, pair.treatment.runId, flips.pairs,
        `${formatPercent(flips.baselinePassRate)} ${formatInterval(wilsonInterval(baselinePassed, flips.pairs))}`,
        `${formatPercent(flips.treatmentPassRate)} ${formatInterval(wilsonInterval(treatmentPassed, flips.pairs))}`,
        signed(-flips.drop), flips.passToFail.length, flips.failToPass.length, pValueText(flips.mcnemarPValue),
      ];
    };
    rows.push(row(pair.transforms, pair.flips));
    for (const group of pair.groups) rows.push(row(`  ${group.group}`, group));
  }
  return {
    title: 'Transformed runs against their baselines (per task: passed in every trial; Wilson 95% intervals; exact McNemar test on the flips; '
      + 'then per drift operator / perturbation, over the tasks it touched)',
    columns: ['suite', 'transform', 'baseline run', 'run', 'paired tasks', 'baseline pass rate', 'transformed pass rate', 'change', 'pass->fail', 'fail->pass', 'McNemar p'],
    rows,
  };
}

/** The per-task flips, one line per flipped task. */
export function transformFlipsText(pairs: readonly TransformPairs[]): string {
  const lines: string[] = [];
  for (const pair of pairs) {
    for (const id of pair.flips.passToFail) lines.push(`${pair.suite} ${pair.transforms}: ${id} pass -> fail`);
    for (const id of pair.flips.failToPass) lines.push(`${pair.suite} ${pair.transforms}: ${id} fail -> pass`);
  }
  return lines.join('\n');
}

/** The table with its title and the flipped tasks, as text. */
export function titledTransformPairs(pairs: readonly TransformPairs[]): string {
  const table = transformPairsTable(pairs);
  const flips = transformFlipsText(pairs);
  return `${table.title}\n${textTable(table)}\n${flips === '' ? '' : `${flips}\n`}`;
}

/** A grouped bar chart: baseline vs transformed pass rate per row (overall and per group). */
export function transformPairsSvg(pairs: readonly TransformPairs[]): string {
  const bars = pairs.flatMap((pair) => [
    { label: `${pair.suite} ${pair.transforms}`, flips: pair.flips },
    ...pair.groups.map((group) => ({ label: `${pair.suite} ${group.group}`, flips: group as PairedFlips })),
  ]);
  const rowHeight = 28;
  const labelWidth = 260;
  const barWidth = 300;
  const height = bars.length * rowHeight + 30;
  const parts: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + barWidth + 80}" height="${height}" role="img" aria-label="pass rates with and without the transform">`];
  bars.forEach((bar, index) => {
    const y = index * rowHeight + 10;
    const baseWidth = Math.round(bar.flips.baselinePassRate * barWidth);
    const treatedWidth = Math.round(bar.flips.treatmentPassRate * barWidth);
    parts.push(
      `<text x="0" y="${y + 14}" font-size="12">${escapeHtml(bar.label)}</text>`,
      `<rect x="${labelWidth}" y="${y}" width="${baseWidth}" height="10" fill="#888"><title>baseline ${formatPercent(bar.flips.baselinePassRate)}</title></rect>`,
      `<rect x="${labelWidth}" y="${y + 11}" width="${treatedWidth}" height="10" fill="#c33"><title>transformed ${formatPercent(bar.flips.treatmentPassRate)}</title></rect>`,
      `<text x="${labelWidth + barWidth + 6}" y="${y + 14}" font-size="11">${escapeHtml(signed(-bar.flips.drop))}</text>`,
    );
  });
  parts.push(`<text x="${labelWidth}" y="${height - 4}" font-size="11">grey: baseline, red: transformed</text>`, '</svg>');
  return parts.join('');
}

/**
 * Adds the paired transform section to a rendered report (the one call site in the report command):
 * a table (and the flips) for `table`, the table and a chart for `html`, a `transformPairs` key for `json`.
 */
export function withTransformPairs(store: ResultsStore, runIds: readonly string[], format: string, rendered: string): string {
  const pairs = findTransformPairs(store, runIds);
  if (pairs.length === 0) return rendered;
  const table = transformPairsTable(pairs);
  switch (format) {
    case 'table':
      return `${rendered.replace(/\n*$/, '\n')}\n${titledTransformPairs(pairs)}`;
    case 'html': {
      const head = table.columns.map((column) => `<th>${escapeHtml(column)}</th>`).join('');
      const body = table.rows.map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(String(cell))}</td>`).join('')}</tr>`).join('');
      const section = `<h3>Transforms against their baselines</h3><p>${escapeHtml(table.title)}</p><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>${transformPairsSvg(pairs)}`;
      return rendered.includes('</body>') ? rendered.replace('</body>', `${section}</body>`) : `${rendered}${section}`;
    }
    case 'json': {
      try {
        const parsed: unknown = JSON.parse(rendered);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return `${JSON.stringify({ ...parsed, transformPairs: pairs }, null, 2)}\n`;
      } catch {
        // Not one JSON object: leave it as it is.
      }
      return rendered;
    }
    default:
      return rendered;
  }
}

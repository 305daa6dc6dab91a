/**
 * Suite metrics as the paper reports them: success rate and average calls on successes and on
 * failures (Table 2, by core size), the share of each call-failure type among all faulty calls
 * (Table 3), success rate by irrelevant-function kind (Figure 4), by dependency depth (Figure 5),
 * and without and with restated values (Figure 8), and the failure types by depth. Everything is
 * computed from the stored scores' details, so a stored run can be summarised again.
 */
import type { FailureCode } from '../../core/failure.ts';
import type { ReportTable, ScoredEpisodes, SuiteSummary } from '../spec.ts';
import { callFaults } from './environment.ts';
import type { FuncgenDetails } from './funcgen-details.ts';

const faultLabels: Record<(typeof callFaults)[number], { label: string; metric: string }> = {
  'tool.unknown': { label: 'Function Not Found', metric: 'shareToolUnknown' },
  'arguments.invalid': { label: 'Wrong Number of Inputs', metric: 'shareArgumentsInvalid' },
  'arguments.value-not-yet-known': { label: 'Value Not Yet Known', metric: 'shareValueNotYetKnown' },
  'arguments.incorrect-value': { label: 'Incorrect Value', metric: 'shareIncorrectValue' },
};

/** The irrelevant functions of a setting, as Figure 4 groups them. */
type IrrelevantKind = 'No Extra' | 'Connected' | 'Half & Half' | 'Mixed' | 'Disconnected';
const irrelevantKinds: readonly IrrelevantKind[] = ['No Extra', 'Connected', 'Half & Half', 'Mixed', 'Disconnected'];

function irrelevantKind(connected: number, disconnected: number): IrrelevantKind {
  if (connected === 0) return disconnected === 0 ? 'No Extra' : 'Disconnected';
  if (disconnected === 0) return 'Connected';
  // The paper only splits half and half; any other split is listed on its own.
  return connected === disconnected ? 'Half & Half' : 'Mixed';
}

/** Counts of one group of episodes (same core, depth, irrelevant kind and restating); every figure is a sum of integers. */
type Counts = { episodes: number; passed: number; callsPassed: number; callsFailed: number; faults: number[] };
type Group = { core: number; depth: number; kind: IrrelevantKind; restate: boolean; counts: Counts };

const emptyCounts = (): Counts => ({ episodes: 0, passed: 0, callsPassed: 0, callsFailed: 0, faults: callFaults.map(() => 0) });

function addCounts(total: Counts, counts: Counts): Counts {
  total.episodes += counts.episodes;
  total.passed += counts.passed;
  total.callsPassed += counts.callsPassed;
  total.callsFailed += counts.callsFailed;
  counts.faults.forEach((count, index) => { total.faults[index] += count; });
  return total;
}

const percent = (value: number | undefined): string | null => (value === undefined ? null : `${(value * 100).toFixed(1)}%`);
const oneDecimal = (value: number | undefined): string | null => (value === undefined ? null : value.toFixed(1));

/** One pass over the episodes into a few groups: the tables are sums over groups, so no episode is kept. */
function groupEpisodes(episodes: ScoredEpisodes<FuncgenDetails>): Group[] {
  const groups = new Map<string, Group>();
  for (const { score } of episodes) {
    // defineSuite checked every episode's details against funcgenDetailsSchema: none is absent here.
    const { details } = score;
    if (!details) continue;
    const kind = irrelevantKind(details.connected, details.disconnected);
    const key = `${details.core}/${details.depth}/${kind}/${details.restate}`;
    let group = groups.get(key);
    if (!group) {
      group = { core: details.core, depth: details.depth, kind, restate: details.restate, counts: emptyCounts() };
      groups.set(key, group);
    }
    const { counts } = group;
    counts.episodes += 1;
    if (score.passed) {
      counts.passed += 1;
      counts.callsPassed += details.calls;
    } else counts.callsFailed += details.calls;
    const failureCounts: Partial<Record<FailureCode, number>> = score.failureCounts ?? {};
    callFaults.forEach((code, index) => { counts.faults[index] += failureCounts[code] ?? 0; });
  }
  return [...groups.values()];
}

export function summarizeFuncgen(episodes: ScoredEpisodes<FuncgenDetails>): SuiteSummary {
  const groups = groupEpisodes(episodes);
  const countsOf = (keep: (group: Group) => boolean): Counts => groups.filter(keep).reduce((total, group) => addCounts(total, group.counts), emptyCounts());
  const aggregate = (counts: Counts) => ({
    episodes: counts.episodes,
    successRate: counts.episodes === 0 ? undefined : counts.passed / counts.episodes,
    avgCallsSuccess: counts.passed === 0 ? undefined : counts.callsPassed / counts.passed,
    avgCallsFailure: counts.episodes - counts.passed === 0 ? undefined : counts.callsFailed / (counts.episodes - counts.passed),
  });
  const all = countsOf(() => true);

  const overall = aggregate(all);
  const faultTotals = all.faults;
  const totalErrors = faultTotals.reduce((sum, count) => sum + count, 0);

  const metrics: Record<string, number> = { episodes: overall.episodes, callErrors: totalErrors };
  if (overall.successRate !== undefined) metrics.successRate = overall.successRate;
  if (overall.avgCallsSuccess !== undefined) metrics.avgCallsSuccess = overall.avgCallsSuccess;
  if (overall.avgCallsFailure !== undefined) metrics.avgCallsFailure = overall.avgCallsFailure;
  if (totalErrors > 0) callFaults.forEach((code, index) => { metrics[faultLabels[code].metric] = faultTotals[index] / totalErrors; });

  const coreSizes = [...new Set(groups.map((group) => group.core))].sort((left, right) => left - right);
  const byCore: ReportTable = {
    title: 'Success rate and average calls (ACs) by core nodes (paper Table 2)',
    columns: ['core nodes', 'episodes', 'success rate', 'ACs (succ.)', 'ACs (fail.)'],
    rows: [...coreSizes.map((core) => [String(core), aggregate(countsOf((group) => group.core === core))] as const), ['all', overall] as const]
      .map(([label, stats]) => [label, stats.episodes, percent(stats.successRate), oneDecimal(stats.avgCallsSuccess), oneDecimal(stats.avgCallsFailure)]),
  };
  const failureTypes: ReportTable = {
    title: 'Failure types of calls (paper Table 3)',
    columns: ['failure type', 'share', 'calls'],
    rows: [
      ...callFaults.map((code, index) => [faultLabels[code].label, percent(totalErrors === 0 ? undefined : faultTotals[index] / totalErrors), faultTotals[index]]),
      ['Total errors', null, totalErrors],
    ],
  };
  const depthKeys = [...new Set(groups.map((group) => `${group.core}/${group.depth}`))]
    .map((key) => key.split('/').map(Number) as [number, number])
    .sort((left, right) => left[0] - right[0] || left[1] - right[1]);
  const byDepth: ReportTable = {
    title: 'Success rate by dependency depth (paper Figure 5)',
    columns: ['core nodes', 'depth', 'episodes', 'success rate'],
    rows: depthKeys.map(([core, depth]) => {
      const stats = aggregate(countsOf((group) => group.core === core && group.depth === depth));
      return [core, depth, stats.episodes, percent(stats.successRate)];
    }),
  };
  const kinds = irrelevantKinds.filter((kind) => groups.some((group) => group.kind === kind));
  const byKind: ReportTable = {
    title: 'Success rate by irrelevant-function kind (paper Figure 4)',
    columns: ['irrelevant functions', 'episodes', 'success rate'],
    rows: kinds.map((kind) => {
      const stats = aggregate(countsOf((group) => group.kind === kind));
      return [kind, stats.episodes, percent(stats.successRate)];
    }),
  };
  const byRestate: ReportTable = {
    title: 'Success rate without and with restated variable values (paper Figure 8)',
    columns: ['variable values', 'episodes', 'success rate'],
    rows: [false, true].filter((restate) => groups.some((group) => group.restate === restate)).map((restate) => {
      const stats = aggregate(countsOf((group) => group.restate === restate));
      return [restate ? 'restated (mitigation)' : 'baseline', stats.episodes, percent(stats.successRate)];
    }),
  };
  const failuresByDepth: ReportTable = {
    title: 'Failure types of calls by dependency depth',
    columns: ['core nodes', 'depth', ...callFaults.map((code) => faultLabels[code].label), 'total errors'],
    rows: depthKeys.map(([core, depth]) => {
      const totals = countsOf((group) => group.core === core && group.depth === depth).faults;
      const total = totals.reduce((sum, count) => sum + count, 0);
      return [core, depth, ...totals.map((count) => percent(total === 0 ? undefined : count / total)), total];
    }),
  };
  return { metrics, tables: [byCore, failureTypes, byKind, byDepth, failuresByDepth, byRestate] };
}

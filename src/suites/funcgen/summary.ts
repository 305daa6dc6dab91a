/**
 * Suite metrics as the paper reports them: success rate and average calls on successes and on
 * failures (Table 2, by core size), the share of each call-failure type among all faulty calls
 * (Table 3), success rate by irrelevant-function kind (Figure 4), by dependency depth (Figure 5),
 * and without and with restated values (Figure 8), and the failure types by depth. Everything is
 * computed from the stored scores' details, so a stored run can be summarised again.
 */
import type { FailureCode } from '../../core/failure.ts';
import type { ReportTable, ScoredEpisode, SuiteSummary } from '../spec.ts';
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

type Row = {
  passed: boolean; calls: number; core: number; depth: number; kind: IrrelevantKind; restate: boolean;
  failureCounts: Partial<Record<FailureCode, number>>;
};

function mean(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0) / values.length;
}

const percent = (value: number | undefined): string | null => (value === undefined ? null : `${(value * 100).toFixed(1)}%`);
const oneDecimal = (value: number | undefined): string | null => (value === undefined ? null : value.toFixed(1));

export function summarizeFuncgen(episodes: readonly ScoredEpisode<FuncgenDetails>[]): SuiteSummary {
  const rows: Row[] = episodes.flatMap(({ score }) => {
    // defineSuite checked every episode's details against funcgenDetailsSchema: none is absent here.
    const { details } = score;
    if (!details) return [];
    return [{
      passed: score.passed, calls: details.calls, core: details.core, depth: details.depth,
      kind: irrelevantKind(details.connected, details.disconnected), restate: details.restate, failureCounts: score.failureCounts ?? {},
    }];
  });
  const aggregate = (group: readonly Row[]) => ({
    episodes: group.length,
    successRate: group.length === 0 ? undefined : group.filter((row) => row.passed).length / group.length,
    avgCallsSuccess: mean(group.filter((row) => row.passed).map((row) => row.calls)),
    avgCallsFailure: mean(group.filter((row) => !row.passed).map((row) => row.calls)),
  });

  const overall = aggregate(rows);
  const faultTotals = callFaults.map((code) => rows.reduce((sum, row) => sum + (row.failureCounts[code] ?? 0), 0));
  const totalErrors = faultTotals.reduce((sum, count) => sum + count, 0);

  const metrics: Record<string, number> = { episodes: overall.episodes, callErrors: totalErrors };
  if (overall.successRate !== undefined) metrics.successRate = overall.successRate;
  if (overall.avgCallsSuccess !== undefined) metrics.avgCallsSuccess = overall.avgCallsSuccess;
  if (overall.avgCallsFailure !== undefined) metrics.avgCallsFailure = overall.avgCallsFailure;
  if (totalErrors > 0) callFaults.forEach((code, index) => { metrics[faultLabels[code].metric] = faultTotals[index] / totalErrors; });

  const coreSizes = [...new Set(rows.map((row) => row.core))].sort((left, right) => left - right);
  const byCore: ReportTable = {
    title: 'Success rate and average calls (ACs) by core nodes (paper Table 2)',
    columns: ['core nodes', 'episodes', 'success rate', 'ACs (succ.)', 'ACs (fail.)'],
    rows: [...coreSizes.map((core) => [String(core), aggregate(rows.filter((row) => row.core === core))] as const), ['all', overall] as const]
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
  const depthKeys = [...new Set(rows.map((row) => `${row.core}/${row.depth}`))]
    .map((key) => key.split('/').map(Number) as [number, number])
    .sort((left, right) => left[0] - right[0] || left[1] - right[1]);
  const byDepth: ReportTable = {
    title: 'Success rate by dependency depth (paper Figure 5)',
    columns: ['core nodes', 'depth', 'episodes', 'success rate'],
    rows: depthKeys.map(([core, depth]) => {
      const stats = aggregate(rows.filter((row) => row.core === core && row.depth === depth));
      return [core, depth, stats.episodes, percent(stats.successRate)];
    }),
  };
  const kinds = irrelevantKinds.filter((kind) => rows.some((row) => row.kind === kind));
  const byKind: ReportTable = {
    title: 'Success rate by irrelevant-function kind (paper Figure 4)',
    columns: ['irrelevant functions', 'episodes', 'success rate'],
    rows: kinds.map((kind) => {
      const stats = aggregate(rows.filter((row) => row.kind === kind));
      return [kind, stats.episodes, percent(stats.successRate)];
    }),
  };
  const byRestate: ReportTable = {
    title: 'Success rate without and with restated variable values (paper Figure 8)',
    columns: ['variable values', 'episodes', 'success rate'],
    rows: [false, true].filter((restate) => rows.some((row) => row.restate === restate)).map((restate) => {
      const stats = aggregate(rows.filter((row) => row.restate === restate));
      return [restate ? 'restated (mitigation)' : 'baseline', stats.episodes, percent(stats.successRate)];
    }),
  };
  const failuresByDepth: ReportTable = {
    title: 'Failure types of calls by dependency depth',
    columns: ['core nodes', 'depth', ...callFaults.map((code) => faultLabels[code].label), 'total errors'],
    rows: depthKeys.map(([core, depth]) => {
      const group = rows.filter((row) => row.core === core && row.depth === depth);
      const totals = callFaults.map((code) => group.reduce((sum, row) => sum + (row.failureCounts[code] ?? 0), 0));
      const total = totals.reduce((sum, count) => sum + count, 0);
      return [core, depth, ...totals.map((count) => percent(total === 0 ? undefined : count / total)), total];
    }),
  };
  return { metrics, tables: [byCore, failureTypes, byKind, byDepth, failuresByDepth, byRestate] };
}

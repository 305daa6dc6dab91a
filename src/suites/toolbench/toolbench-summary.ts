/**
 * The suite's metrics. Judged runs: StableToolBench's Solvable Pass Rate per judge run, (Solved +
 * 0.5 Unsure) / episodes, reported as mean ± sample std over the `judge-times` runs. Always: the
 * structural rates (finished with an answer, gave up, API calls valid under the enforced schema,
 * recovered after a schema error), overall and per query group.
 */
import { meanAndDeviation } from '../../metrics/mean-and-deviation.ts';
import type { ReportTable, ScoredEpisodes, SuiteSummary } from '../spec.ts';
import { solvablePassRate } from './solvable-pass-rate.ts';
import type { ToolbenchDetails } from './toolbench-score.ts';

/** One pass rate per judge run (run r reads every episode's r-th verdict); empty when unjudged. */
export function passRatesPerJudgeRun(details: readonly ToolbenchDetails[]): number[] {
  const judged = details.filter((detail) => detail.judged);
  if (judged.length === 0) return [];
  const runs = Math.min(...judged.map((detail) => detail.verdicts.length));
  const rates: number[] = [];
  for (let run = 0; run < runs; run += 1) rates.push(solvablePassRate(judged.map((detail) => detail.verdicts[run])));
  return rates;
}

function structural(details: readonly ToolbenchDetails[]) {
  const count = details.length;
  const apiCalls = details.reduce((sum, detail) => sum + detail.apiCalls, 0);
  const withError = details.filter((detail) => detail.recovered !== null);
  return {
    finishedWithAnswer: count === 0 ? Number.NaN : details.filter((detail) => detail.answered).length / count,
    gaveUp: count === 0 ? Number.NaN : details.filter((detail) => detail.finish === 'give-up').length / count,
    noFinish: count === 0 ? Number.NaN : details.filter((detail) => detail.finish === 'no-finish').length / count,
    validCallRate: apiCalls === 0 ? Number.NaN : details.reduce((sum, detail) => sum + detail.validCalls, 0) / apiCalls,
    recoveredAfterSchemaError: withError.length === 0 ? Number.NaN : withError.filter((detail) => detail.recovered === true).length / withError.length,
  };
}

function percent(value: number): string {
  return Number.isNaN(value) ? '-' : `${(value * 100).toFixed(1)}`;
}

function passRateCell(details: readonly ToolbenchDetails[]): string {
  const rates = passRatesPerJudgeRun(details);
  if (rates.length === 0) {
    const passed = details.filter((detail) => detail.answered && detail.validCalls >= 1 && detail.recovered !== false).length;
    return `${percent(details.length === 0 ? Number.NaN : passed / details.length)} (unjudged)`;
  }
  const { mean, standardDeviation } = meanAndDeviation(rates);
  return `${(mean * 100).toFixed(1)} ± ${(standardDeviation * 100).toFixed(1)}`;
}

export function summarizeToolbench(episodes: ScoredEpisodes<ToolbenchDetails>): SuiteSummary {
  // defineSuite checked every episode's details against toolbenchDetailsSchema. Small per-episode records (flags and
  // counts), not the episodes: ToolBench runs are a few thousand episodes.
  const details: ToolbenchDetails[] = [];
  for (const episode of episodes) if (episode.score.details) details.push(episode.score.details);
  const rates = passRatesPerJudgeRun(details);
  const metrics: Record<string, number> = { ...structural(details), judged: rates.length > 0 ? 1 : 0, judgeRuns: rates.length };
  if (rates.length > 0) {
    const { mean, standardDeviation } = meanAndDeviation(rates);
    metrics.solvablePassRate = mean;
    metrics.solvablePassRateStd = standardDeviation;
  }
  const groups = [...new Set(details.map((detail) => detail.group))].sort();
  const table: ReportTable = {
    title: rates.length > 0
      ? `Solvable Pass Rate (%) by group: (Solved + 0.5 Unsure) / n, mean ± std over ${rates.length} judge runs`
      : 'Structural pass rate (%) by group, unjudged: Finish with a non-empty answer, ≥ 1 valid API call, no unrecovered schema error',
    columns: ['group', 'episodes', 'pass rate', 'finished with answer', 'gave up', 'valid calls', 'recovered after schema error'],
    rows: [...groups, 'all'].map((group) => {
      const subset = group === 'all' ? details : details.filter((detail) => detail.group === group);
      const rates = structural(subset);
      return [group, subset.length, passRateCell(subset), percent(rates.finishedWithAnswer), percent(rates.gaveUp), percent(rates.validCallRate), percent(rates.recoveredAfterSchemaError)];
    }),
  };
  return { metrics, tables: [table] };
}

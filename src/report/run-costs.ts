import type { LatencyPercentiles } from '../metrics/percentile.ts';
import { sortedLatencyPercentiles } from '../metrics/percentile.ts';
import type { PriceTable } from './model-prices.ts';
import { defaultPrices, priceOf } from './model-prices.ts';
import { scoredDurations, usageTotals } from './report-episodes.ts';
import type { RunReport } from './run-report.ts';

export type RunCosts = {
  runId: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** USD at the price table's rate; null when the model has no price. */
  costUsd: number | null;
  /** Percentiles of scored episodes' wall-clock durations (ms); null when none was scored. */
  latencyMs: LatencyPercentiles | null;
};

/**
 * Tokens over every stored episode of a run (an infrastructure error that consumed tokens still cost
 * them), their cost at the model's price, and latency percentiles over scored episodes. The tokens are one pass (a
 * stored run's SQL sums); the percentiles read only the ranks they need of the sorted durations (a stored run's by SQL).
 */
export function runCosts(report: RunReport, prices: PriceTable = defaultPrices): RunCosts {
  const { inputTokens, outputTokens } = usageTotals(report.episodes);
  const price = priceOf(prices, report.summary.model);
  return {
    runId: report.summary.runId,
    model: report.summary.model,
    inputTokens,
    outputTokens,
    costUsd: price === undefined ? null : (inputTokens * price.input + outputTokens * price.output) / 1_000_000,
    latencyMs: sortedLatencyPercentiles(scoredDurations(report.episodes)) ?? null,
  };
}

import type { LatencyPercentiles } from '../metrics/percentile.ts';
import { latencyPercentiles } from '../metrics/percentile.ts';
import type { PriceTable } from './model-prices.ts';
import { defaultPrices, priceOf } from './model-prices.ts';
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
 * them), their cost at the model's price, and latency percentiles over scored episodes.
 */
export function runCosts(report: RunReport, prices: PriceTable = defaultPrices): RunCosts {
  const inputTokens = report.episodes.reduce((sum, episode) => sum + episode.usage.inputTokens, 0);
  const outputTokens = report.episodes.reduce((sum, episode) => sum + episode.usage.outputTokens, 0);
  const price = priceOf(prices, report.summary.model);
  const durations = report.episodes.filter((episode) => episode.status === 'scored').map((episode) => episode.durationMs);
  return {
    runId: report.summary.runId,
    model: report.summary.model,
    inputTokens,
    outputTokens,
    costUsd: price === undefined ? null : (inputTokens * price.input + outputTokens * price.output) / 1_000_000,
    latencyMs: latencyPercentiles(durations) ?? null,
  };
}

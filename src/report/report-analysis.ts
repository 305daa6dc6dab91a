import type { DifficultyCurve } from './difficulty-curves.ts';
import { difficultyCurves } from './difficulty-curves.ts';
import type { Leaderboard } from './leaderboard.ts';
import { leaderboard } from './leaderboard.ts';
import type { PriceTable } from './model-prices.ts';
import { defaultPrices } from './model-prices.ts';
import type { RunCosts } from './run-costs.ts';
import { runCosts } from './run-costs.ts';
import type { RunReport } from './run-report.ts';

export type ReportAnalysisOptions = {
  /** Prices for the cost column (default: defaultPrices; see readPriceFile for a user's file). */
  prices?: PriceTable;
};

/** What a report shows beyond each run's own figures: difficulty curves, the leaderboard, costs. */
export type ReportAnalysis = {
  difficulty: DifficultyCurve[];
  /** Null for a report of one run: there is nothing to rank. */
  leaderboard: Leaderboard | null;
  costs: RunCosts[];
};

export function analyzeReports(reports: readonly RunReport[], options: ReportAnalysisOptions = {}): ReportAnalysis {
  return {
    difficulty: difficultyCurves(reports),
    leaderboard: reports.length > 1 ? leaderboard(reports) : null,
    costs: reports.map((report) => runCosts(report, options.prices ?? defaultPrices)),
  };
}

import { pairedSampleSize } from '../metrics/paired-sample-size.ts';
import type { ResultsStore } from '../store/results-store.ts';

/** Paired pass/fail outcomes of two runs, and how many pairs a study of this difference needs. */
export type TrialsNeeded = {
  /** (task, trial) episodes scored in both runs. */
  pairs: number;
  bothPassed: number;
  bothFailed: number;
  baselineOnly: number;
  treatmentOnly: number;
  /**
   * Pairs needed to detect the observed difference with a two-sided McNemar test at 95% confidence
   * and 80% power (Connor 1987, see metrics/paired-sample-size.ts): tasks, with one trial each per
   * run. Null when the runs do not differ on these pairs.
   */
  needed: number | null;
};

/**
 * Pairs every scored episode of the baseline with the treatment's episode of the same task (by
 * `taskKeys`: each run's task keys by task id) and trial number, counts concordant and discordant pairs, and sizes the study.
 */
export function trialsNeeded(store: ResultsStore, baselineRunId: string, treatmentRunId: string, taskKeys: (runId: string) => ReadonlyMap<string, string>): TrialsNeeded {
  const outcomes = (runId: string): Map<string, boolean> => {
    const keyOf = taskKeys(runId);
    const result = new Map<string, boolean>();
    // Outcomes without transcripts, a page at a time; the pairing keeps one boolean per (task, trial).
    for (const { outcome: episode } of store.iterateEpisodeOutcomes(runId, { status: 'scored' })) {
      const key = keyOf.get(episode.taskId);
      if (key !== undefined && episode.score) result.set(`${key}\u0000${episode.trial}`, episode.score.passed);
    }
    return result;
  };
  const baseline = outcomes(baselineRunId);
  const treatment = outcomes(treatmentRunId);
  const counts = { pairs: 0, bothPassed: 0, bothFailed: 0, baselineOnly: 0, treatmentOnly: 0 };
  for (const [key, baselinePassed] of baseline) {
    const treatmentPassed = treatment.get(key);
    if (treatmentPassed === undefined) continue;
    counts.pairs += 1;
    if (baselinePassed && treatmentPassed) counts.bothPassed += 1;
    else if (baselinePassed) counts.baselineOnly += 1;
    else if (treatmentPassed) counts.treatmentOnly += 1;
    else counts.bothFailed += 1;
  }
  return { ...counts, needed: pairedSampleSize(counts) };
}

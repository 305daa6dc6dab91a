/**
 * The scorer without the runner: samples plus raw model outputs in, NESTFUL metrics out. The replay
 * path (re-scoring published result files) and the benchmark use it directly.
 */
import type { SampleEvaluation, NestfulReference } from './evaluate-sample.ts';
import { evaluatePrediction, referenceStats } from './evaluate-sample.ts';
import { answerMatches, executeCallSequence } from './execute-calls.ts';
import type { NestfulMetrics } from './nestful-metrics.ts';
import { aggregateEvaluations } from './nestful-metrics.ts';
import type { NestfulSample } from './nestful-sample.ts';
import { hasExecutableTools } from './nestful-sample.ts';
import { pythonRound } from './python-format.ts';

export type ExecutableCheck = { executable: true } | { executable: false; reason: string };

/**
 * Whether a sample's win rate can be computed here: math tools we implement, a gold answer, and the
 * gold sequence reproducing it. Samples failing this are still scored on the other metrics.
 */
export function checkExecutable(sample: Pick<NestfulSample, 'flavour' | 'outputJson' | 'goldAnswerJson' | 'tools'>): ExecutableCheck {
  if (sample.goldAnswerJson === null) return { executable: false, reason: 'the sample has no gold answer (v1 data)' };
  if (sample.flavour !== 'math' || !hasExecutableTools(sample.tools)) {
    return { executable: false, reason: 'its tools are not MathQA operations implemented here' };
  }
  const reference: NestfulReference = { ...sample, executable: true };
  // The gold list as the scorer parsed it (referenceStats throws when it is not a list).
  const stats = referenceStats(reference);
  const outcome = executeCallSequence(stats.goldObjects, sample.tools);
  if (!outcome.ok) return { executable: false, reason: `the gold sequence does not execute: ${outcome.failure.message}` };
  if (!answerMatches(outcome.answer, stats.goldAnswer, stats.goldDecimals, pythonRound)) {
    return { executable: false, reason: `the gold sequence computes ${JSON.stringify(outcome.answer)}, not the gold answer ${sample.goldAnswerJson}` };
  }
  return { executable: true };
}

export function toReference(sample: NestfulSample): NestfulReference {
  return { outputJson: sample.outputJson, goldAnswerJson: sample.goldAnswerJson, tools: sample.tools, executable: checkExecutable(sample).executable };
}

export type ScoredPredictions = { metrics: NestfulMetrics; evaluations: SampleEvaluation[] };

/**
 * Scores raw outputs against samples. `predictions` is keyed by sample id (a Map) or aligned by index
 * (an array); a missing output scores as unparsable.
 */
export function scoreNestfulPredictions(
  samples: readonly NestfulSample[],
  predictions: ReadonlyMap<string, string> | readonly (string | undefined)[],
): ScoredPredictions {
  const evaluations = samples.map((sample, index) => {
    const text = Array.isArray(predictions) ? predictions[index] : (predictions as ReadonlyMap<string, string>).get(sample.sampleId);
    return evaluatePrediction(toReference(sample), { type: 'text', text: text ?? '' });
  });
  return { metrics: aggregateEvaluations(evaluations), evaluations };
}

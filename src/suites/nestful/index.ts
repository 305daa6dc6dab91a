/** The NESTFUL suite and its runner-free scoring API. */
export { nestfulSuite } from './nestful-suite.ts';
export { scoreNestfulPredictions, checkExecutable, toReference } from './score-predictions.ts';
export type { ScoredPredictions } from './score-predictions.ts';
export { importNestfulSamples } from './import-samples.ts';
export type { NestfulSample, NestfulTool, NestfulFlavour } from './nestful-sample.ts';
export { evaluatePrediction } from './evaluate-sample.ts';
export type { SampleEvaluation, NestfulReference } from './evaluate-sample.ts';
export { aggregateEvaluations, flattenMetrics } from './nestful-metrics.ts';
export type { NestfulMetrics } from './nestful-metrics.ts';
export { generateSample } from './generate-samples.ts';
export type { GeneratorKnobs } from './generate-samples.ts';

export * from './wilson-interval.ts';
export * from './pass-at-k.ts';
export * from './mean-and-deviation.ts';
export * from './failure-breakdown.ts';
export * from './paired-comparison.ts';
export * from './percentile.ts';
export * from './normal-quantile.ts';
export * from './paired-sample-size.ts';

export * from './random-source.ts';
export * from './distractor-story.ts';
export * from './case-mixing.ts';
export * from './punctuation-noise.ts';
export * from './model-paraphrase.ts';
export * from './query-perturbations.ts';

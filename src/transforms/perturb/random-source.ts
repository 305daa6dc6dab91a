import type { Rng } from '../../core/rng.ts';

/**
 * The one draw the perturbations need: a float in [0, 1), as Python's random.random(). An Rng
 * satisfies it; tests script the draws to check outputs by hand.
 */
export type RandomSource = Pick<Rng, 'float'>;

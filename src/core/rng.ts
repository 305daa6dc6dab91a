/**
 * Seeded randomness. Generation and scoring never use Math.random: every choice comes from an Rng
 * built from a seed, and sub-streams are derived by name so that adding a draw in one place does not
 * shift the draws of another.
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** 32-bit FNV-1a hash of a string: stable across machines, used to derive seeds from names. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export function deriveSeed(seed: number, ...labels: (string | number)[]): number {
  return hashString(`${seed}/${labels.join('/')}`);
}

export class Rng {
  private readonly generator: RandomGenerator;
  readonly seed: number;

  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) throw new TypeError(`Rng seed must be a safe integer, got ${seed}`);
    this.seed = seed;
    this.generator = xoroshiro128plus(seed | 0);
  }

  /** A new independent stream, derived from this stream's seed and a label. */
  child(...labels: (string | number)[]): Rng {
    return new Rng(deriveSeed(this.seed, ...labels));
  }

  /** Integer in [min, max], both inclusive, without modulo bias. */
  int(min: number, max: number): number {
    if (max < min) throw new RangeError(`Rng.int: max ${max} < min ${min}`);
    return uniformInt(this.generator, min, max);
  }

  /** Float in [0, 1). */
  float(): number {
    return this.int(0, 2 ** 30 - 1) / 2 ** 30;
  }

  bool(probability = 0.5): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick on an empty list');
    return items[this.int(0, items.length - 1)];
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let index = copy.length - 1; index > 0; index -= 1) {
      const other = this.int(0, index);
      [copy[index], copy[other]] = [copy[other], copy[index]];
    }
    return copy;
  }

  /** `count` distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    if (count > items.length) throw new RangeError(`Rng.sample: ${count} > ${items.length} items`);
    return this.shuffle(items).slice(0, count);
  }

  /** A random string of lowercase letters. */
  letters(length: number): string {
    let text = '';
    for (let index = 0; index < length; index += 1) text += String.fromCharCode(97 + this.int(0, 25));
    return text;
  }
}

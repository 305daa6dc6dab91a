/**
 * The frequency recorder of Algorithm 1 (ν): how often each pair transition `(previous transition on the bridging
 * state object, transition)` was chosen. One book lives for a whole generation run, shared by every program and by
 * both branches of a program, so later programs are pushed towards pairs earlier ones did not cover.
 */
import { z } from 'zod';

export const noPreviousTransition = 'NONE';

export function pairKey(previous: string, transition: string): string {
  return `${previous}||${transition}`;
}

export class OccurrenceBook {
  readonly #counts = new Map<string, number>();

  count(pair: string): number {
    return this.#counts.get(pair) ?? 0;
  }

  record(pair: string): void {
    this.#counts.set(pair, this.count(pair) + 1);
  }

  get size(): number {
    return this.#counts.size;
  }

  /** `{"A||B": n}` with sorted keys, the reference's on-disk form. */
  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.#counts.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)));
  }

  static fromJSON(value: unknown): OccurrenceBook {
    const book = new OccurrenceBook();
    for (const [pair, count] of Object.entries(z.record(z.string(), z.number().int().nonnegative()).parse(value))) {
      book.#counts.set(pair, count);
    }
    return book;
  }
}

/**
 * Case mixing (mode `case_mix`): one draw picks upper, lower or random case (equally likely); random
 * case then draws once per character (upper below 0.5), as the reference does per code point. Names and values
 * (verbatim-spans.ts), the task's tool and parameter names among them, keep their case, and take no draw.
 */
import type { RandomSource } from './random-source.ts';
import { verbatimMask } from './verbatim-spans.ts';

export type CaseMode = 'upper' | 'lower' | 'random';
const caseModes: readonly CaseMode[] = ['upper', 'lower', 'random'];

/** `names`: the task's tool and parameter names, kept as they are wherever they stand as words. */
export function mixCase(query: string, random: RandomSource, names: ReadonlySet<string> = new Set()): string {
  const mode = caseModes[Math.min(caseModes.length - 1, Math.floor(random.float() * caseModes.length))];
  const kept = verbatimMask(query, names);
  let mixed = '';
  let index = 0;
  for (const character of query) {
    const upper = kept[index] ? undefined : mode === 'upper' ? true : mode === 'lower' ? false : random.float() < 0.5;
    mixed += upper === undefined ? character : upper ? character.toUpperCase() : character.toLowerCase();
    index += character.length;
  }
  return mixed;
}

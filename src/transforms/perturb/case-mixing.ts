/**
 * Case mixing (mode `case_mix`): one draw picks upper, lower or random case (equally likely); random
 * case then draws once per character (upper below 0.5), as the reference does per code point.
 */
import type { RandomSource } from './random-source.ts';

export type CaseMode = 'upper' | 'lower' | 'random';
const caseModes: readonly CaseMode[] = ['upper', 'lower', 'random'];

export function mixCase(query: string, random: RandomSource): string {
  const mode = caseModes[Math.min(caseModes.length - 1, Math.floor(random.float() * caseModes.length))];
  if (mode === 'upper') return query.toUpperCase();
  if (mode === 'lower') return query.toLowerCase();
  let mixed = '';
  for (const character of query) mixed += random.float() < 0.5 ? character.toUpperCase() : character.toLowerCase();
  return mixed;
}
